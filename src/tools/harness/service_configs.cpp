#include "harness/service_configs.hpp"

#include <cstdlib>

namespace outbox::harness {
namespace {

std::string env_or_empty(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? "" : value;
}

// kafka.properties lines (indented under properties:) for the cluster's security settings.
std::string security_properties_yaml(const KafkaClientSecurity& security) {
  if (security.password_file.empty()) return "";
  return "    security.protocol: SASL_SSL\n"
         "    sasl.mechanisms: " +
         security.mechanism + "\n    sasl.username: " + security.username +
         "\n    ssl.ca.location: " + security.ca_file + "\n";
}

// The kafka.property_files section holding the password (the relay's and planner's way).
std::string security_files_yaml(const KafkaClientSecurity& security,
                                const std::string& password_file) {
  if (security.password_file.empty()) return "";
  return "  property_files:\n    sasl.password: " +
         (password_file.empty() ? security.password_file : password_file) + "\n";
}

}  // namespace

KafkaClientSecurity kafka_client_security() {
  if (env_or_empty("OUTBOX_KAFKA_SECURITY") != "sasl_ssl") return {};
  return {env_or_empty("OUTBOX_KAFKA_SASL_MECHANISM"), env_or_empty("OUTBOX_KAFKA_SASL_USERNAME"),
          env_or_empty("OUTBOX_KAFKA_SASL_PASSWORD_FILE"), env_or_empty("OUTBOX_KAFKA_CA")};
}

std::string mysql_section_yaml(const MysqlEndpoint& endpoint, const std::string& password_yaml) {
  return "mysql:\n"
         "  host: " +
         endpoint.host + "\n  port: " + std::to_string(endpoint.port) +
         "\n  user: " + endpoint.user + "\n  " + password_yaml +
         "\n  database: " + endpoint.database + "\n";
}

std::string relay_config_yaml(const std::string& mysql_yaml, const std::string& bootstrap,
                              const RelayConfigSettings& settings) {
  std::string yaml = mysql_yaml;
  yaml += "kafka:\n";
  yaml += "  bootstrap_servers: " + bootstrap + "\n";
  yaml += settings.extra_kafka_settings;
  const KafkaClientSecurity security = kafka_client_security();
  yaml += "  properties:\n";
  yaml += "    log.connection.close: \"false\"\n";
  yaml += security_properties_yaml(security);
  yaml += settings.extra_kafka_properties;
  yaml += security_files_yaml(security, settings.sasl_password_file);
  yaml += "relay:\n";
  if (!settings.instance_id.empty()) yaml += "  instance_id: " + settings.instance_id + "\n";
  yaml += "  workers: " + std::to_string(settings.workers) + "\n";
  yaml += "  batch_size: " + std::to_string(settings.batch_size) + "\n";
  yaml += "  lease: " + settings.lease + "\n";
  yaml += "  poll_interval: " + settings.poll_interval + "\n";
  yaml += "  drain_timeout: " + settings.drain_timeout + "\n";
  yaml += "  backoff_max: " + settings.backoff_max + "\n";
  yaml += settings.extra_relay_settings;
  yaml += "log:\n";
  yaml += "  level: debug\n";
  yaml += "  stats_interval: 1s\n";
  yaml += settings.extra_log_settings;
  // Port 0: relays of parallel runs never collide; the relay logs the port it got.
  yaml += "metrics:\n";
  yaml += "  listen: 127.0.0.1:0\n";
  yaml += "  backlog_interval: 1s\n";
  yaml += settings.extra_metrics_settings;
  return yaml;
}

std::string planner_config_yaml(const std::string& mysql_yaml, const std::string& bootstrap,
                                const PlannerConfigSettings& settings) {
  std::string yaml = mysql_yaml;
  yaml += "kafka:\n";
  yaml += "  bootstrap_servers: " + bootstrap + "\n";
  yaml += "  topics: [" + settings.topic + "]\n";
  if (!settings.group_id.empty()) yaml += "  group_id: " + settings.group_id + "\n";
  yaml += "  properties:\n";
  yaml += "    log.connection.close: \"false\"\n";
  yaml += "    session.timeout.ms: \"" + settings.session_timeout_ms + "\"\n";
  yaml += "    heartbeat.interval.ms: \"500\"\n";
  const KafkaClientSecurity security = kafka_client_security();
  yaml += security_properties_yaml(security);
  yaml += security_files_yaml(security, "");
  yaml += "consumer:\n";
  if (!settings.name.empty()) yaml += "  name: " + settings.name + "\n";
  yaml += "  dead_letter_topic: " + settings.dead_letter_topic + "\n";
  yaml += "  backoff_initial: " + settings.backoff_initial + "\n";
  yaml += "  backoff_max: " + settings.backoff_max + "\n";
  yaml += "  max_attempts: " + std::to_string(settings.max_attempts) + "\n";
  yaml += "log:\n";
  yaml += "  level: debug\n";
  yaml += "  stats_interval: 1s\n";
  return yaml;
}

}  // namespace outbox::harness
