#include "settings/relay_config.hpp"

#include "settings/kafka_section.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>

#include "config/mysql_section.hpp"
#include "kafka/rdkafka_handles.hpp"
#include "mysql/sql_identifier.hpp"
#include "publish/producer_config.hpp"
#include "publish/topic_router.hpp"

namespace outbox {
namespace {

using std::chrono::seconds;

// A delivery report can only arrive this long before the lease ends for the mark to land
// inside the lease.
constexpr Micros kLeaseMarginOverDelivery = seconds(5);

std::optional<RelayConfig> load_config(const std::string& file, const EnvLookup& env,
                                       ConfigDiagnostics& diagnostics,
                                       PasswordFileRead password_file_read) {
  const std::optional<YAML::Node> root_node = load_yaml_file(file, diagnostics);
  if (!root_node) return std::nullopt;
  YamlSection root(*root_node, "", 1, diagnostics, env);

  RelayConfig config;
  YamlSection mysql_section = root.section("mysql");
  // mysql.table is the relay's (and outboxctl's), not every program's: read here, before the
  // shared reader checks the section's other keys.
  config.outbox_table = mysql_section.string("table", kDefaultOutboxTable);
  config.outbox_table_line = mysql_section.line_of("table");
  if (const auto problem = identifier_problem(config.outbox_table)) {
    mysql_section.problem("table", *problem);
  }
  config.mysql = read_mysql_section(mysql_section, password_file_read);
  YamlSection kafka_section = root.section("kafka");
  config.kafka = read_kafka(kafka_section);
  YamlSection relay_section = root.section("relay");
  config.relay = read_relay(relay_section);
  config.log = read_log_section(root.section("log"));
  YamlSection metrics_section = root.section("metrics");
  config.metrics = read_metrics(metrics_section);
  config.retention = read_retention_section(root.section("retention"));
  config.outboxctl = read_outboxctl_section(root.section("outboxctl"));
  root.reject_unknown_keys();

  validate_producer_properties(config.kafka, diagnostics);
  const Micros delivery_timeout = effective_delivery_timeout(config.kafka);
  if (delivery_timeout == Micros::max() ||
      config.relay.lease < delivery_timeout + kLeaseMarginOverDelivery) {
    const std::string timeout_text = delivery_timeout == Micros::max()
                                         ? std::string("infinite")
                                         : format_duration(delivery_timeout);
    relay_section.problem(
        "lease", "must exceed the producer's delivery timeout (message.timeout.ms = " +
                     timeout_text + ") by at least " + format_duration(kLeaseMarginOverDelivery) +
                     ", or a lease can end while its delivery is pending and another relay "
                     "publishes the event again");
  }
  for (const ScalarAt& property : config.kafka.properties) {
    // "random" ignores the key, so one aggregate's events would spread over partitions and
    // Kafka would not keep their order; every other partitioner hashes the key.
    if (property.key == "partitioner" && property.value == "random" &&
        keeps_aggregate_order(config.relay.ordering)) {
      diagnostics.add(property.line, "kafka.properties.partitioner",
                      "random spreads one aggregate's events over partitions, which breaks "
                      "relay.ordering: per_aggregate; use a key-hashing partitioner");
    }
  }
  // The longest a worker loop (or the start-up wait) can legitimately go between two health
  // ticks: one round is one MySQL attempt (connect + one statement, each bounded), a broker
  // probe, then a backoff or idle pause. Waits inside a round that can be longer (queue room in
  // send(), delivery reports, the retries of a mark) tick on their own. A shorter stall
  // timeout would make /healthz and the watchdog restart a relay that is only waiting out an
  // outage.
  const Micros longest_wait = config.mysql.connect_timeout + config.mysql.read_timeout +
                              kBrokerProbeTimeout +
                              std::max(config.relay.backoff_max, config.relay.poll_interval_max);
  if (config.metrics.stall_timeout <= longest_wait) {
    metrics_section.problem(
        "stall_timeout",
        "must exceed " + format_duration(longest_wait) +
            ", the longest a worker loop legitimately goes without a health tick: "
            "mysql.connect_timeout + mysql.read_timeout (one statement) + " +
            format_duration(kBrokerProbeTimeout) +
            " (a broker probe) + the longer of relay.backoff_max and relay.poll_interval_max");
  }
  if (!diagnostics.empty()) return std::nullopt;
  return config;
}

}  // namespace

std::optional<RelayConfig> load_relay_config(const std::string& file, const EnvLookup& env,
                                             ConfigDiagnostics& diagnostics) {
  return load_config(file, env, diagnostics, PasswordFileRead::kWithTheFile);
}

std::optional<RelayConfig> load_outboxctl_config(const std::string& file, const EnvLookup& env,
                                                 ConfigDiagnostics& diagnostics) {
  return load_config(file, env, diagnostics, PasswordFileRead::kWhenConnecting);
}

Ordering claim_ordering(const RelaySettings& relay) {
  return keeps_aggregate_order(relay.ordering) ? Ordering::kPerAggregate : Ordering::kNone;
}

lease_sql::Schema claim_schema(const RelayConfig& config) {
  // Both were validated as plain identifiers when the config was loaded.
  std::vector<SqlIdentifier> columns;
  for (const std::string& column : message_columns(config.kafka.message))
    columns.push_back(SqlIdentifier::parse(column).value());
  return {SqlIdentifier::parse(config.outbox_table).value(), columns};
}

std::string print_relay_config(const RelayConfig& config) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "mysql" << YAML::Value;
  emit_mysql_section(config.mysql, out, config.outbox_table);

  out << YAML::Key << "kafka" << YAML::Value;
  kafka_keys().emit_section(out, config.kafka);

  out << YAML::Key << "relay" << YAML::Value;
  relay_keys().emit_section(out, config.relay);

  out << YAML::Key << "log" << YAML::Value;
  emit_log_section(config.log, out);

  out << YAML::Key << "metrics" << YAML::Value;
  metrics_keys().emit_section(out, config.metrics);
  out << YAML::Key << "retention" << YAML::Value;
  emit_retention_section(config.retention, out);
  out << YAML::Key << "outboxctl" << YAML::Value;
  emit_outboxctl_section(config.outboxctl, out);
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

}  // namespace outbox
