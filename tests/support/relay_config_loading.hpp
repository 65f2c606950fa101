#pragma once

#include <map>
#include <optional>
#include <string>

#include "config/env_substitution.hpp"
#include "settings/relay_config.hpp"

namespace outbox::test {

// An environment of exactly these variables.
EnvLookup env_of(std::map<std::string, std::string> values);

// The result of loading a config text: the config when valid, and every error message with
// the temp file's path shown as "relay.yaml".
struct LoadedConfig {
  std::optional<RelayConfig> config;
  std::string errors;
  std::string warnings;  // "warning: relay.yaml:LINE: key: what" lines
};

LoadedConfig load_relay_config_text(const std::string& yaml,
                                    std::map<std::string, std::string> env = {});

// The smallest valid relay config (mysql and kafka sections only).
inline const std::string kMinimalRelayConfig =
    "mysql:\n"
    "  user: relay\n"
    "  database: app\n"
    "kafka:\n"
    "  bootstrap_servers: localhost:9092\n";

}  // namespace outbox::test
