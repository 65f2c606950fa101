#include "kafka/kafka_properties.hpp"

#include <spdlog/spdlog.h>

#include <array>
#include <cctype>

namespace outbox {
namespace {

rd_kafka_conf_res_t set_property(rd_kafka_conf_t* conf, const std::string& name,
                                 const std::string& value, std::string& error) {
  std::array<char, 512> message{};
  const rd_kafka_conf_res_t result =
      rd_kafka_conf_set(conf, name.c_str(), value.c_str(), message.data(), message.size());
  if (result != RD_KAFKA_CONF_OK) error = message.data();
  return result;
}

const std::string& shown(const KafkaProperty& property) {
  static const std::string kRedacted = "*****";
  return is_secret_kafka_property(property.name) ? kRedacted : property.value;
}

}  // namespace

Outcome<RdKafkaConf> make_kafka_conf(const std::vector<KafkaProperty>& properties) {
  RdKafkaConf conf(rd_kafka_conf_new());
  for (const KafkaProperty& property : properties) {
    std::string error;
    if (set_property(conf.get(), property.name, property.value, error) != RD_KAFKA_CONF_OK) {
      return Error{"librdkafka rejects " + property.name + ": " + error};
    }
  }
  return conf;
}

void validate_kafka_properties(const std::vector<ScalarAt>& properties,
                               const KafkaPropertyPolicy& policy, ConfigDiagnostics& diagnostics) {
  RdKafkaConf scratch(rd_kafka_conf_new());
  for (const ScalarAt& property : properties) {
    const std::string path = "kafka.properties." + property.key;
    const std::string reason = policy(property.key, property.value);
    if (!reason.empty()) {
      diagnostics.add(property.line, path, reason);
      continue;
    }
    std::string error;
    if (set_property(scratch.get(), property.key, property.value, error) != RD_KAFKA_CONF_OK) {
      diagnostics.add(property.line, path, "librdkafka rejects it: " + error);
    }
  }
}

void log_kafka_properties(const std::vector<KafkaProperty>& properties) {
  for (const KafkaProperty& property : properties) {
    spdlog::info("kafka property {} = {} ({})", property.name, shown(property), property.origin);
  }
}

void emit_kafka_properties(const std::vector<KafkaProperty>& properties, YAML::Emitter& out) {
  out << YAML::BeginMap;
  for (const KafkaProperty& property : properties) {
    out << YAML::Key << property.name << YAML::Value << shown(property);
  }
  out << YAML::EndMap;
}

std::string lowercase(std::string text) {
  for (char& c : text)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

}  // namespace outbox
