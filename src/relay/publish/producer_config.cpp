#include "publish/producer_config.hpp"

#include <charconv>

#include "secret_file.hpp"

namespace outbox {
namespace {

constexpr const char* kDefaultDeliveryTimeoutMs = "30000";

// Defaults chosen for an outbox relay; each can be overridden in kafka.properties.
const std::vector<std::pair<std::string, std::string>>& producer_property_defaults() {
  static const std::vector<std::pair<std::string, std::string>> defaults{
      {"client.id", "outbox-relay"},
      // Every delivery report arrives within this bound; the lease must outlast it.
      {"message.timeout.ms", kDefaultDeliveryTimeoutMs},
      // The relay hands over a whole claimed batch at once and then waits for it, so a long
      // linger only adds latency to every batch; 1 ms still lets a burst share requests.
      {"linger.ms", "1"},
      // librdkafka leaves Nagle's algorithm on (socket.nagle.disable false): a small produce
      // request written while the previous one is unacknowledged then waits for the broker's
      // delayed ACK, about 40 ms. A chained batch (relay.chain_length) sends one small wave
      // per broker round trip, and measured waves took 3 ms or 44 ms by that alone.
      {"socket.nagle.disable", "true"},
      // Same key -> partition mapping as the Java client, so events of one aggregate land on
      // the partition other producers of the ecosystem would pick.
      {"partitioner", "murmur2_random"},
      // librdkafka's statistics feed the request retry, timeout and disconnect counters of
      // /metrics (client_statistics.hpp). Every 5 s is fresher than a usual 15 s scrape and
      // costs one JSON document of about 1 KB per broker and partition the producer uses.
      {"statistics.interval.ms", "5000"},
  };
  return defaults;
}

// Why a user-supplied property may not be set, or "" if it may.
std::string forbidden_reason(const std::string& name, const std::string& value) {
  if (name == "bootstrap.servers" || name == "metadata.broker.list") {
    return "set kafka.bootstrap_servers instead";
  }
  if (name == "enable.idempotence" && lowercase(value) != "true") {
    return "must stay true: the relay relies on the idempotent producer for per-partition order "
           "and for retries that do not duplicate";
  }
  if ((name == "acks" || name == "request.required.acks") && lowercase(value) != "all" &&
      value != "-1") {
    return "must stay all: an event is marked PUBLISHED only once every in-sync replica has it";
  }
  if (name == "transactional.id") {
    return "is set by the relay: relay.ordering: transactional names one per producer after "
           "relay.instance_id";
  }
  if (name == "delivery.report.only.error" && lowercase(value) != "false") {
    return "must stay false: the relay marks an event PUBLISHED on its successful delivery "
           "report, so without them nothing would ever be marked";
  }
  return "";
}

}  // namespace

std::vector<ProducerProperty> producer_properties(const KafkaSettings& kafka, ProducerRole role) {
  const TransactionalIdentity* transactional = role.transactional;
  std::vector<ProducerProperty> out;
  for (const auto& [name, value] : producer_property_defaults())
    out.push_back({name, value, "default"});
  if (transactional != nullptr) {
    const auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(transactional->default_timeout);
    out.push_back({"transaction.timeout.ms", std::to_string(ms.count()),
                   "relay.lease (relay.ordering: transactional)"});
  }
  append_user_kafka_properties(out, kafka.properties, kafka.property_files);
  out.push_back({"bootstrap.servers", kafka.bootstrap_servers, "kafka.bootstrap_servers"});
  out.push_back({"enable.idempotence", "true", "required by the relay"});
  out.push_back({"acks", "all", "required by the relay"});
  if (transactional != nullptr) {
    out.push_back(
        {"transactional.id", transactional->transactional_id, "relay.ordering: transactional"});
  }
  if (role.gapless) {
    // librdkafka's gapless guarantee covers every failure but a message timeout (a message
    // timed out in the queue is skipped while later ones go: 1, 4, 5 land, 2 and 3 do not).
    // So these producers never time a message out; the relay purges a batch that is not
    // reported before its lease runs short (pipelined_deliveries.hpp).
    out.push_back({"enable.gapless.guarantee", "true", "relay.pipelined_chains"});
    out.push_back({"message.timeout.ms", "0", "relay.pipelined_chains"});
    // Running out of retries on a retriable error is no permanent error: librdkafka fails
    // that message alone and renumbers the next ones under a bumped epoch, a gap the
    // guarantee does not catch. librdkafka's own default (with idempotence) is this maximum;
    // a kafka.properties retries setting must not lower it here.
    out.push_back({"message.send.max.retries", "2147483647", "relay.pipelined_chains"});
  }
  return out;
}

Outcome<RdKafkaConf> make_producer_conf(const KafkaSettings& kafka, ProducerRole role) {
  return make_kafka_conf(producer_properties(kafka, role));
}

void validate_producer_properties(const KafkaSettings& kafka, ConfigDiagnostics& diagnostics) {
  validate_kafka_properties(kafka.properties, kafka.property_files, forbidden_reason, diagnostics);
}

Micros effective_delivery_timeout(const KafkaSettings& kafka) {
  std::string value = kDefaultDeliveryTimeoutMs;
  for (const ScalarAt& property : kafka.properties) {
    if (property.key == "message.timeout.ms" || property.key == "delivery.timeout.ms") {
      value = property.value;
    }
  }
  for (const KafkaPropertyFile& file : kafka.property_files) {
    if (file.name == "message.timeout.ms" || file.name == "delivery.timeout.ms") {
      if (Outcome<std::string> content = read_secret_file(file.path)) value = content.value();
    }
  }
  int64_t ms = 0;
  std::from_chars(value.data(), value.data() + value.size(), ms);
  // librdkafka treats 0 as "infinite": no bound at all.
  return ms == 0 ? Micros::max() : Micros(ms * 1000);
}

}  // namespace outbox
