#pragma once

#include <string>

#include "mysql/mysql_endpoint.hpp"

namespace outbox::harness {

// Config files for the chain's daemons as tests and outbox-verify run them: debug logs (a line
// per delivered, applied or duplicate event, the evidence they read), a progress line every
// second, metrics on an ephemeral port.

// The `mysql:` section for `endpoint`; `password_yaml` is the password line without its
// indentation, e.g. "password: ${OUTBOX_MYSQL_PASSWORD}" or "password_file: /run/pw".
std::string mysql_section_yaml(const MysqlEndpoint& endpoint, const std::string& password_yaml);

// The client side of a SASL_SSL cluster (scripts/kafka-cluster.sh with
// OUTBOX_KAFKA_SECURITY=sasl_ssl), as KafkaCluster exports it to the test's environment:
// every client the test starts (relays, planners, kcat through KCAT_CONFIG) authenticates.
// Empty `password_file`: the cluster is plaintext (or none was started), nothing to add.
struct KafkaClientSecurity {
  std::string mechanism;      // OUTBOX_KAFKA_SASL_MECHANISM
  std::string username;       // OUTBOX_KAFKA_SASL_USERNAME
  std::string password_file;  // OUTBOX_KAFKA_SASL_PASSWORD_FILE
  std::string ca_file;        // OUTBOX_KAFKA_CA
};
KafkaClientSecurity kafka_client_security();

// Settings of a relay config file.
struct RelayConfigSettings {
  std::string instance_id;
  int workers = 2;
  int batch_size = 500;
  std::string lease = "60s";
  std::string poll_interval = "20ms";
  std::string drain_timeout = "20s";
  std::string backoff_max = "1s";
  std::string extra_kafka_settings;    // YAML lines indented under kafka: (topics:, profile:...)
  std::string extra_kafka_properties;  // YAML lines indented under kafka.properties
  // On a SASL_SSL cluster, the file kafka.property_files.sasl.password names instead of the
  // cluster's (a wrong password).
  std::string sasl_password_file;
  std::string extra_relay_settings;    // YAML lines indented under relay:
  std::string extra_log_settings;      // YAML lines indented under log:
  std::string extra_metrics_settings;  // YAML lines indented under metrics:
};

std::string relay_config_yaml(const std::string& mysql_yaml, const std::string& bootstrap,
                              const RelayConfigSettings& settings);

// Settings of a notification-planner config file.
struct PlannerConfigSettings {
  std::string name;      // consumer.name; empty: the default (notification-planner)
  std::string group_id;  // empty: the consumer name
  std::string topic = "outbox.order";
  std::string dead_letter_topic = "outbox.order.dead-letter";
  std::string backoff_initial = "50ms";
  std::string backoff_max = "400ms";
  // consumer.max_attempts; 0 (retry until an operator acts) unless a test is about giving up.
  int max_attempts = 0;
  // A killed member is evicted after this, so a restarted one gets its partitions quickly.
  std::string session_timeout_ms = "3000";
};

std::string planner_config_yaml(const std::string& mysql_yaml, const std::string& bootstrap,
                                const PlannerConfigSettings& settings);

}  // namespace outbox::harness
