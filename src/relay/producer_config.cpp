#include "producer_config.hpp"

#include <array>
#include <cctype>
#include <charconv>

namespace outbox {
namespace {

constexpr const char* kDefaultDeliveryTimeoutMs = "30000";

// Defaults chosen for an outbox relay; each can be overridden in kafka.properties.
const std::vector<std::pair<std::string, std::string>>& relay_defaults() {
  static const std::vector<std::pair<std::string, std::string>> defaults{
      {"client.id", "outbox-relay"},
      // Every delivery report arrives within this bound; the lease must outlast it.
      {"message.timeout.ms", kDefaultDeliveryTimeoutMs},
      // The relay hands over a whole claimed batch at once and then waits for it, so a long
      // linger only adds latency to every batch; 1 ms still lets a burst share requests.
      {"linger.ms", "1"},
      // Same key -> partition mapping as the Java client, so events of one aggregate land on
      // the partition other producers of the ecosystem would pick.
      {"partitioner", "murmur2_random"},
  };
  return defaults;
}

std::string trim_lower(std::string text) {
  for (char& c : text)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// Why a user-supplied property may not be set, or "" if it may.
std::string forbidden_reason(const std::string& name, const std::string& value) {
  if (name == "bootstrap.servers" || name == "metadata.broker.list") {
    return "set kafka.bootstrap_servers instead";
  }
  if (name == "enable.idempotence" && trim_lower(value) != "true") {
    return "must stay true: the relay relies on the idempotent producer for per-partition order "
           "and for retries that do not duplicate";
  }
  if ((name == "acks" || name == "request.required.acks") && trim_lower(value) != "all" &&
      value != "-1") {
    return "must stay all: an event is marked PUBLISHED only once every in-sync replica has it";
  }
  if (name == "transactional.id") return "is not supported: the relay does not use transactions";
  return "";
}

rd_kafka_conf_res_t set_property(rd_kafka_conf_t* conf, const ProducerProperty& property,
                                 std::string& error) {
  std::array<char, 512> message{};
  const rd_kafka_conf_res_t result = rd_kafka_conf_set(
      conf, property.name.c_str(), property.value.c_str(), message.data(), message.size());
  if (result != RD_KAFKA_CONF_OK) error = message.data();
  return result;
}

}  // namespace

std::vector<ProducerProperty> producer_properties(const KafkaSettings& kafka) {
  std::vector<ProducerProperty> out;
  for (const auto& [name, value] : relay_defaults())
    out.push_back({name, value, "default"});
  for (const ScalarAt& property : kafka.properties) {
    out.push_back({property.key, property.value, "kafka.properties"});
  }
  out.push_back({"bootstrap.servers", kafka.bootstrap_servers, "kafka.bootstrap_servers"});
  out.push_back({"enable.idempotence", "true", "required by the relay"});
  out.push_back({"acks", "all", "required by the relay"});
  return out;
}

Outcome<RdKafkaConf> make_producer_conf(const KafkaSettings& kafka) {
  RdKafkaConf conf(rd_kafka_conf_new());
  for (const ProducerProperty& property : producer_properties(kafka)) {
    std::string error;
    if (set_property(conf.get(), property, error) != RD_KAFKA_CONF_OK) {
      return Error{"librdkafka rejects " + property.name + ": " + error};
    }
  }
  return conf;
}

void validate_producer_properties(const KafkaSettings& kafka, ConfigDiagnostics& diagnostics) {
  RdKafkaConf scratch(rd_kafka_conf_new());
  for (const ScalarAt& property : kafka.properties) {
    const std::string path = "kafka.properties." + property.key;
    const std::string reason = forbidden_reason(property.key, property.value);
    if (!reason.empty()) {
      diagnostics.add(property.line, path, reason);
      continue;
    }
    std::string error;
    if (set_property(scratch.get(), {property.key, property.value, ""}, error) !=
        RD_KAFKA_CONF_OK) {
      diagnostics.add(property.line, path, "librdkafka rejects it: " + error);
    }
  }
}

Micros effective_delivery_timeout(const KafkaSettings& kafka) {
  std::string value = kDefaultDeliveryTimeoutMs;
  for (const ScalarAt& property : kafka.properties) {
    if (property.key == "message.timeout.ms" || property.key == "delivery.timeout.ms") {
      value = property.value;
    }
  }
  int64_t ms = 0;
  std::from_chars(value.data(), value.data() + value.size(), ms);
  // librdkafka treats 0 as "infinite": no bound at all.
  return ms == 0 ? Micros::max() : Micros(ms * 1000);
}

}  // namespace outbox
