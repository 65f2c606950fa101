#pragma once

#include <yaml-cpp/yaml.h>

#include <string>

#include "config/duration.hpp"
#include "config/setting_table.hpp"
#include "config/yaml_section.hpp"
#include "logging.hpp"

namespace outbox {

// log.*: the same keys for every program configured by YAML.
struct LogSettings {
  std::string level = "info";
  LogFormat format = LogFormat::kText;
  Micros stats_interval = std::chrono::seconds(30);  // 0: no periodic progress line
};

// log.*'s keys (setting_table.hpp): level reloads on SIGHUP where the program reloads.
const SettingTable<LogSettings>& log_keys();

// Reads a `log:` section (level, format, stats_interval).
LogSettings read_log_section(YamlSection section);

// Writes the settings as a YAML mapping value.
void emit_log_section(const LogSettings& log, YAML::Emitter& out);

}  // namespace outbox
