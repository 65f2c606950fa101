#pragma once

#include <optional>
#include <string>
#include <vector>

#include "config/config_diagnostics.hpp"
#include "config/duration.hpp"
#include "config/env_substitution.hpp"
#include "config/log_section.hpp"
#include "config/yaml_section.hpp"
#include "kafka/kafka_properties.hpp"
#include "lease_store/lease_sql.hpp"
#include "mysql/mysql_endpoint.hpp"
#include "mysql/sql_identifier.hpp"
#include "publish/kafka_settings.hpp"
#include "publish/message_settings.hpp"
#include "publish/topic_router.hpp"
#include "settings/operator_settings.hpp"
#include "settings/relay_settings.hpp"

namespace outbox {

struct RelayConfig {
  MysqlEndpoint mysql;
  // mysql.table: the outbox table the relay, outboxctl and retention work on (a plain
  // identifier; same columns and indexes as sql/ gives outbox_event).
  std::string outbox_table = kDefaultOutboxTable;
  int outbox_table_line = 0;
  KafkaSettings kafka;
  RelaySettings relay;
  LogSettings log;
  MetricsSettings metrics;
  RetentionSettings retention;  // read by outboxctl purge; the relay ignores it
  OutboxctlSettings outboxctl;  // outboxctl's own MySQL account; the relay ignores it
};

// The claim's rule for relay.ordering: per aggregate unless ordering: none.
Ordering claim_ordering(const RelaySettings& relay);

// Reads and validates the whole file. Every problem goes to `diagnostics` (all of them, with
// file:line and key path); a config is returned only when there were none. This is the one
// validation path: start-up and --check-config both call it.
std::optional<RelayConfig> load_relay_config(const std::string& file, const EnvLookup& env,
                                             ConfigDiagnostics& diagnostics);

// The same file as outboxctl reads it: every check of load_relay_config, except that
// mysql.password_file is not read (mysql.password stays empty). outboxctl_endpoint reads it
// only when outboxctl connects as mysql.user, so a unit that runs outboxctl with an account of
// its own (outbox-purge.service) is not handed the relay's password.
std::optional<RelayConfig> load_outboxctl_config(const std::string& file, const EnvLookup& env,
                                                 ConfigDiagnostics& diagnostics);

// The table and message columns every claim statement is built for.
lease_sql::Schema claim_schema(const RelayConfig& config);

// The effective config as YAML with secrets shown as *****.
std::string print_relay_config(const RelayConfig& config);

}  // namespace outbox
