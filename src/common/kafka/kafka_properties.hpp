#pragma once

#include <yaml-cpp/yaml.h>

#include <functional>
#include <string>
#include <vector>

#include "config/config_diagnostics.hpp"
#include "config/yaml_section.hpp"
#include "kafka/rdkafka_handles.hpp"
#include "outcome.hpp"

namespace outbox {

// One librdkafka property as a program applies it, and why it has that value.
struct KafkaProperty {
  std::string name;
  std::string value;
  const char* origin;  // e.g. "default", "kafka.properties", "required by the relay"
};

// A librdkafka conf holding `properties`, set in order (a later one wins); the error names
// the property librdkafka refused.
Outcome<RdKafkaConf> make_kafka_conf(const std::vector<KafkaProperty>& properties);

// Why a user-supplied property may not be set (the program controls it), or "" if it may.
using KafkaPropertyPolicy =
    std::function<std::string(const std::string& name, const std::string& value)>;

// Checks kafka.properties at load time, each problem at its line: what `policy` forbids and
// names or values librdkafka rejects.
void validate_kafka_properties(const std::vector<ScalarAt>& properties,
                               const KafkaPropertyPolicy& policy, ConfigDiagnostics& diagnostics);

// One info line per property, in the order applied, secrets as *****.
void log_kafka_properties(const std::vector<KafkaProperty>& properties);

// The properties as a YAML mapping value, secrets as *****.
void emit_kafka_properties(const std::vector<KafkaProperty>& properties, YAML::Emitter& out);

// librdkafka reads booleans and enums in any case: compare values through this.
std::string lowercase(std::string text);

}  // namespace outbox
