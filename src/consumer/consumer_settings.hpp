#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "config/config_diagnostics.hpp"
#include "config/duration.hpp"
#include "config/yaml_section.hpp"
#include "kafka/kafka_properties.hpp"

namespace outbox::consumer {

// kafka.* of a consumer: where to read and as which group.
struct ConsumerKafkaSettings {
  std::string bootstrap_servers;
  std::vector<std::string> topics;
  std::string group_id;              // empty in the file: consumer.name
  std::vector<ScalarAt> properties;  // handed to librdkafka verbatim (consumer and dead-letter
                                     // producer alike: security settings serve both)
  std::vector<KafkaPropertyFile> property_files;  // ... each as its file's content
};

// consumer.*: this consumer's identity and its failure handling.
struct ConsumerBehaviour {
  // consumed_event.consumer_name: one effect per (name, event). Two deployments that must each
  // take effect once need two names; two instances of one deployment share it.
  std::string name;
  // Where messages without a valid event_id header, and events the handler rejects, go.
  std::string dead_letter_topic;
  // Pause before a failed message is tried again: doubles per failure of the same message, up
  // to backoff_max, with jitter.
  Micros backoff_initial = std::chrono::milliseconds(100);
  Micros backoff_max = std::chrono::seconds(10);
  // Failures of one message that are its own or its handler's (see ApplyOutcome::counts_attempt)
  // before it goes to the dead-letter topic with the last error, so a message that can never
  // take effect does not hold its partition forever. 0: never (retry until an operator acts).
  // A lost session, a lock wait or a deadlock never counts.
  int max_attempts = 10;
  // Acknowledged offsets are committed together at most this often (and always when
  // partitions are revoked and at shutdown), never before the message's database commit.
  // 0: one commit request per message.
  Micros commit_interval = std::chrono::seconds(1);
};

struct ConsumerSettings {
  ConsumerKafkaSettings kafka;
  ConsumerBehaviour consumer;
};

// Reads `kafka:` and `consumer:` of a consumer's YAML file, checks them together (the
// dead-letter topic must not be a consumed topic; librdkafka properties the consumer controls
// are refused) and records every problem in `diagnostics`. `default_name` is consumer.name's
// default (empty: the key is required).
ConsumerSettings read_consumer_settings(YamlSection kafka_section, YamlSection consumer_section,
                                        const std::string& default_name,
                                        ConfigDiagnostics& diagnostics);

// The consumer's effective librdkafka properties, in the order applied: defaults
// (client.id = name, auto.offset.reset = earliest), kafka.properties, then what the
// consumer's guarantees depend on (group.id, enable.auto.commit = false,
// enable.auto.offset.store = false).
std::vector<KafkaProperty> consumer_properties(const ConsumerSettings& settings);

// The dead-letter producer's: defaults (client.id = name + "-dead-letter", linger.ms = 0,
// message.timeout.ms = 30000), kafka.properties, then enable.idempotence = true, acks = all.
std::vector<KafkaProperty> dead_letter_producer_properties(const ConsumerSettings& settings);

// `kafka:` and `consumer:` as YAML mapping entries, secrets as *****.
void emit_consumer_settings(const ConsumerSettings& settings, YAML::Emitter& out);

}  // namespace outbox::consumer
