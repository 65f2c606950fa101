#include "relay_config.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>

#include "config/byte_size.hpp"
#include "config/mysql_section.hpp"
#include "http_endpoint.hpp"
#include "kafka/rdkafka_handles.hpp"
#include "lease_store/lease_token.hpp"
#include "mysql/sql_identifier.hpp"
#include "publish/producer_config.hpp"
#include "publish/topic_router.hpp"

namespace outbox {
namespace {

using std::chrono::hours;
using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::seconds;

// A delivery report can only arrive this long before the lease ends for the mark to land
// inside the lease.
constexpr Micros kLeaseMarginOverDelivery = seconds(5);

KafkaSettings read_kafka(YamlSection section) {
  KafkaSettings kafka;
  kafka.bootstrap_servers = section.required_string("bootstrap_servers");
  kafka.message = read_message_settings(section);
  kafka.topic = section.string("topic", default_topic_template(kafka.message.profile));
  if (Outcome<TopicTemplate> parsed = TopicTemplate::parse(kafka.topic); !parsed) {
    section.problem("topic", parsed.error().message);
  }
  kafka.topics = section.string_map("topics");
  for (const ScalarAt& entry : kafka.topics) {
    if (Outcome<TopicTemplate> parsed = TopicTemplate::parse(entry.value); !parsed) {
      section.problem_at(entry.line, "kafka.topics." + entry.key, parsed.error().message);
    }
  }
  kafka.properties = section.string_map("properties");
  section.warn_if_inline_secrets_exposed("properties", is_secret_kafka_property);
  kafka.property_files = read_kafka_property_files(section, kafka.properties);
  section.reject_unknown_keys();
  return kafka;
}

RelaySettings read_relay(YamlSection section) {
  RelaySettings relay;
  relay.instance_id = section.string("instance_id", "");
  if (relay.instance_id.size() > kMaxInstanceIdLength) {
    section.problem("instance_id", "must be at most " + std::to_string(kMaxInstanceIdLength) +
                                       " characters (lease_owner is VARCHAR(128))");
  }
  if (relay.instance_id.find('/') != std::string::npos) {
    section.problem("instance_id", "must not contain '/', which separates lease token parts");
  }
  relay.workers = static_cast<int>(section.integer("workers", relay.workers, 1, 64));
  relay.batch_size = static_cast<int>(section.integer("batch_size", relay.batch_size, 1, 10000));
  relay.lease = section.duration("lease", relay.lease, seconds(10), hours(1));
  relay.poll_interval =
      section.duration("poll_interval", relay.poll_interval, milliseconds(1), minutes(1));
  relay.poll_interval_max =
      section.duration("poll_interval_max", relay.poll_interval_max, milliseconds(1), minutes(1));
  if (relay.poll_interval_max < relay.poll_interval) {
    section.problem("poll_interval_max", "must not be shorter than relay.poll_interval (" +
                                             format_duration(relay.poll_interval) + ")");
  }
  relay.drain_timeout =
      section.duration("drain_timeout", relay.drain_timeout, seconds(1), minutes(10));
  relay.reclaim_interval =
      section.duration("reclaim_interval", relay.reclaim_interval, milliseconds(10), minutes(10));
  const YamlSection::DurationRange backoff = section.duration_range(
      "backoff_initial", "backoff_max", {relay.backoff_initial, relay.backoff_max}, milliseconds(1),
      minutes(1), hours(1));
  relay.backoff_initial = backoff.initial;
  relay.backoff_max = backoff.max;
  const std::string ordering =
      section.choice("ordering", "per_aggregate", {"per_aggregate", "transactional", "none"});
  relay.ordering = ordering == "none" ? Ordering::kNone : Ordering::kPerAggregate;
  relay.transactional = ordering == "transactional";
  relay.pipelined_chains = section.boolean("pipelined_chains", relay.pipelined_chains);
  const bool versions_go_together =
      relay.transactional || (relay.ordering == Ordering::kPerAggregate && relay.pipelined_chains);
  relay.chain_length = static_cast<int>(section.integer(
      "chain_length", versions_go_together ? kLongChainLength : kWaveChainLength, 0, 1000));
  relay.max_attempts =
      static_cast<int>(section.integer("max_attempts", relay.max_attempts, 1, 1000));
  const YamlSection::DurationRange retry_backoff = section.duration_range(
      "retry_backoff_initial", "retry_backoff_max",
      {relay.retry_backoff_initial, relay.retry_backoff_max}, milliseconds(1), hours(1), hours(24));
  relay.retry_backoff_initial = retry_backoff.initial;
  relay.retry_backoff_max = retry_backoff.max;
  relay.unknown_topic_grace =
      section.duration("unknown_topic_grace", relay.unknown_topic_grace, Micros(0), hours(24));
  relay.partition_recheck =
      section.duration("partition_recheck", relay.partition_recheck, seconds(10), hours(24));
  relay.max_lease_expiries =
      static_cast<int>(section.integer("max_lease_expiries", relay.max_lease_expiries, 1, 1000));
  relay.max_in_flight_bytes = section.byte_size("max_in_flight_bytes", relay.max_in_flight_bytes,
                                                uint64_t{1} << 20, uint64_t{64} << 30);
  relay.max_events_per_second = static_cast<uint64_t>(section.integer(
      "max_events_per_second", static_cast<int64_t>(relay.max_events_per_second), 0, 10000000));
  relay.minimal_row_image =
      section.choice("binlog_row_image", "minimal", {"minimal", "server"}) == "minimal";
  section.reject_unknown_keys();
  return relay;
}

MetricsSettings read_metrics(YamlSection section) {
  MetricsSettings metrics;
  metrics.listen = section.string("listen", metrics.listen);
  if (!metrics.listen.empty() && !parse_listen(metrics.listen)) {
    section.problem("listen",
                    "must be host:port (port 0 picks a free one) or \"\" to turn "
                    "the endpoint off, got \"" +
                        metrics.listen + "\"");
  }
  metrics.backlog_interval =
      section.duration("backlog_interval", metrics.backlog_interval, seconds(1), hours(1));
  metrics.stall_timeout =
      section.duration("stall_timeout", metrics.stall_timeout, seconds(5), hours(1));
  section.reject_unknown_keys();
  return metrics;
}

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
        config.relay.ordering == Ordering::kPerAggregate) {
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

std::string ordering_name(const RelaySettings& relay) {
  if (relay.ordering == Ordering::kNone) return "none";
  return relay.transactional ? "transactional" : "per_aggregate";
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
  const auto duration = [](Micros value) { return format_duration(value); };
  out << YAML::BeginMap;
  out << YAML::Key << "mysql" << YAML::Value;
  emit_mysql_section(config.mysql, out, config.outbox_table);

  out << YAML::Key << "kafka" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "bootstrap_servers" << YAML::Value << config.kafka.bootstrap_servers;
  out << YAML::Key << "topic" << YAML::Value << config.kafka.topic;
  out << YAML::Key << "topics" << YAML::Value << YAML::BeginMap;
  for (const ScalarAt& entry : config.kafka.topics) {
    out << YAML::Key << entry.key << YAML::Value << entry.value;
  }
  out << YAML::EndMap;
  emit_message_settings(config.kafka.message, out);
  emit_kafka_properties(producer_properties(config.kafka), out);
  out << YAML::EndMap;

  const RelaySettings& relay = config.relay;
  out << YAML::Key << "relay" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "instance_id" << YAML::Value << relay.instance_id;
  out << YAML::Key << "workers" << YAML::Value << relay.workers;
  out << YAML::Key << "batch_size" << YAML::Value << relay.batch_size;
  out << YAML::Key << "lease" << YAML::Value << duration(relay.lease);
  out << YAML::Key << "poll_interval" << YAML::Value << duration(relay.poll_interval);
  out << YAML::Key << "poll_interval_max" << YAML::Value << duration(relay.poll_interval_max);
  out << YAML::Key << "drain_timeout" << YAML::Value << duration(relay.drain_timeout);
  out << YAML::Key << "reclaim_interval" << YAML::Value << duration(relay.reclaim_interval);
  out << YAML::Key << "backoff_initial" << YAML::Value << duration(relay.backoff_initial);
  out << YAML::Key << "backoff_max" << YAML::Value << duration(relay.backoff_max);
  out << YAML::Key << "ordering" << YAML::Value << ordering_name(relay);
  out << YAML::Key << "pipelined_chains" << YAML::Value << relay.pipelined_chains;
  out << YAML::Key << "chain_length" << YAML::Value << relay.chain_length;
  out << YAML::Key << "max_attempts" << YAML::Value << relay.max_attempts;
  out << YAML::Key << "retry_backoff_initial" << YAML::Value
      << duration(relay.retry_backoff_initial);
  out << YAML::Key << "retry_backoff_max" << YAML::Value << duration(relay.retry_backoff_max);
  out << YAML::Key << "unknown_topic_grace" << YAML::Value << duration(relay.unknown_topic_grace);
  out << YAML::Key << "partition_recheck" << YAML::Value << duration(relay.partition_recheck);
  out << YAML::Key << "max_lease_expiries" << YAML::Value << relay.max_lease_expiries;
  out << YAML::Key << "max_in_flight_bytes" << YAML::Value
      << format_byte_size(relay.max_in_flight_bytes);
  out << YAML::Key << "max_events_per_second" << YAML::Value << relay.max_events_per_second;
  out << YAML::Key << "binlog_row_image" << YAML::Value
      << (relay.minimal_row_image ? "minimal" : "server");
  out << YAML::EndMap;

  out << YAML::Key << "log" << YAML::Value;
  emit_log_section(config.log, out);

  out << YAML::Key << "metrics" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "listen" << YAML::Value << config.metrics.listen;
  out << YAML::Key << "backlog_interval" << YAML::Value
      << duration(config.metrics.backlog_interval);
  out << YAML::Key << "stall_timeout" << YAML::Value << duration(config.metrics.stall_timeout);
  out << YAML::EndMap;
  out << YAML::Key << "retention" << YAML::Value;
  emit_retention_section(config.retention, out);
  out << YAML::Key << "outboxctl" << YAML::Value;
  emit_outboxctl_section(config.outboxctl, out);
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

}  // namespace outbox
