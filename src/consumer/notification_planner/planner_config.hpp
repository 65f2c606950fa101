#pragma once

#include <optional>
#include <string>

#include "config/config_diagnostics.hpp"
#include "config/env_substitution.hpp"
#include "config/log_section.hpp"
#include "consumer_settings.hpp"
#include "mysql/mysql_endpoint.hpp"

namespace outbox::planner {

inline constexpr const char* kDefaultConsumerName = "notification-planner";

// notification-planner's YAML file: mysql (where notification_job and consumed_event live),
// kafka and consumer (the consumer library's keys), log.
struct PlannerConfig {
  MysqlEndpoint mysql;
  consumer::ConsumerSettings consumer;
  LogSettings log;
};

// Reads and validates the whole file; every problem goes to `diagnostics` (file:line, key
// path), and a config is returned only when there were none. Start-up and --check-config both
// call exactly this.
std::optional<PlannerConfig> load_planner_config(const std::string& file, const EnvLookup& env,
                                                 ConfigDiagnostics& diagnostics);

// The effective config as YAML, secrets as *****.
std::string print_planner_config(const PlannerConfig& config);

}  // namespace outbox::planner
