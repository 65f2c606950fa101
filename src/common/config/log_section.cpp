#include "config/log_section.hpp"

#include <utility>

namespace outbox {

const SettingTable<LogSettings>& log_keys() {
  static const SettingTable<LogSettings> keys = [] {
    SettingTable<LogSettings> table;
    table
        .choice("level", &LogSettings::level, {"trace", "debug", "info", "warn", "error"},
                Reload::kLive)
        .choice("format", &LogSettings::format,
                {{"text", LogFormat::kText}, {"json", LogFormat::kJson}})
        .duration("stats_interval", &LogSettings::stats_interval, Micros(0), std::chrono::hours(1));
    return table;
  }();
  return keys;
}

LogSettings read_log_section(YamlSection section) {
  return log_keys().read_section(std::move(section));
}

void emit_log_section(const LogSettings& log, YAML::Emitter& out) {
  log_keys().emit_section(out, log);
}

}  // namespace outbox
