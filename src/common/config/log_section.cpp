#include "config/log_section.hpp"

namespace outbox {

LogSettings read_log_section(YamlSection section) {
  LogSettings log;
  log.level = section.choice("level", log.level, {"trace", "debug", "info", "warn", "error"});
  log.format = section.choice("format", "text", {"text", "json"}) == "json" ? LogFormat::kJson
                                                                            : LogFormat::kText;
  log.stats_interval =
      section.duration("stats_interval", log.stats_interval, Micros(0), std::chrono::hours(1));
  section.reject_unknown_keys();
  return log;
}

void emit_log_section(const LogSettings& log, YAML::Emitter& out) {
  out << YAML::BeginMap;
  out << YAML::Key << "level" << YAML::Value << log.level;
  out << YAML::Key << "format" << YAML::Value << (log.format == LogFormat::kJson ? "json" : "text");
  out << YAML::Key << "stats_interval" << YAML::Value << format_duration(log.stats_interval);
  out << YAML::EndMap;
}

}  // namespace outbox
