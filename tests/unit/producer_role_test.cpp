// The properties of the relay's producers by role: what a gapless producer
// (relay.pipelined_chains) must have whatever kafka.properties says.
#include <catch2/catch.hpp>

#include <string>

#include "publish/producer_config.hpp"

namespace {

// The value librdkafka ends up with: the last one applied.
std::string applied(const std::vector<outbox::ProducerProperty>& properties,
                    const std::string& name) {
  std::string value;
  for (const outbox::ProducerProperty& property : properties) {
    if (property.name == name) value = property.value;
  }
  return value;
}

}  // namespace

TEST_CASE("a gapless producer never times a message out nor gives up retrying", "[config]") {
  outbox::KafkaSettings kafka;
  kafka.bootstrap_servers = "127.0.0.1:9092";
  // A user's settings, fine for the shared producer, each one a gap source on a gapless one.
  kafka.properties.push_back({"message.timeout.ms", "15000", 3});
  kafka.properties.push_back({"retries", "5", 4});

  const auto shared = outbox::producer_properties(kafka);
  CHECK(applied(shared, "message.timeout.ms") == "15000");
  CHECK(applied(shared, "retries") == "5");
  CHECK(applied(shared, "enable.gapless.guarantee").empty());

  const auto gapless = outbox::producer_properties(kafka, outbox::ProducerRole{nullptr, true});
  CHECK(applied(gapless, "enable.gapless.guarantee") == "true");
  CHECK(applied(gapless, "message.timeout.ms") == "0");
  // "retries" is librdkafka's alias of message.send.max.retries: the later setting wins.
  CHECK(applied(gapless, "message.send.max.retries") == "2147483647");
  CHECK(applied(gapless, "enable.idempotence") == "true");
  // librdkafka accepts the combination.
  CHECK(outbox::make_producer_conf(kafka, outbox::ProducerRole{nullptr, true}));
}
