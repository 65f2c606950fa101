// notification-planner's config loader (and through it the consumer library's kafka: and
// consumer: sections): defaults, and every error at once with file:line and key path.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>

#include "planner_config.hpp"
#include "test_env.hpp"

using outbox::ConfigDiagnostics;
using outbox::planner::PlannerConfig;

namespace {

struct Loaded {
  std::optional<PlannerConfig> config;
  std::string errors;
};

Loaded load(const std::string& yaml) {
  outbox::test::TempDir dir;
  const std::string path = dir.write("planner.yaml", yaml);
  ConfigDiagnostics diagnostics(path);
  Loaded loaded;
  loaded.config = outbox::planner::load_planner_config(
      path, [](const std::string&) -> std::optional<std::string> { return std::nullopt; },
      diagnostics);
  loaded.errors = diagnostics.render();
  for (size_t at; (at = loaded.errors.find(path)) != std::string::npos;) {
    loaded.errors.replace(at, path.size(), "planner.yaml");
  }
  return loaded;
}

const std::string kMinimal =
    "mysql:\n"
    "  user: planner\n"
    "  database: app\n"
    "kafka:\n"
    "  bootstrap_servers: k1:9092\n"
    "  topics: [outbox.order]\n"
    "consumer:\n"
    "  dead_letter_topic: outbox.order.dead-letter\n";

std::map<std::string, std::string> properties_of(const outbox::consumer::ConsumerSettings& s) {
  std::map<std::string, std::string> out;
  for (const auto& property : outbox::consumer::consumer_properties(s))
    out[property.name] = property.value;
  return out;
}

}  // namespace

TEST_CASE("a minimal planner config gets the consumer's defaults", "[planner-config]") {
  const Loaded loaded = load(kMinimal);
  REQUIRE(loaded.errors.empty());
  REQUIRE(loaded.config);
  const auto& consumer = loaded.config->consumer;
  CHECK(consumer.consumer.name == "notification-planner");
  CHECK(consumer.kafka.group_id == "notification-planner");
  CHECK(consumer.kafka.topics == std::vector<std::string>{"outbox.order"});
  CHECK(consumer.consumer.backoff_initial == std::chrono::milliseconds(100));
  CHECK(consumer.consumer.backoff_max == std::chrono::seconds(10));
  const auto properties = properties_of(consumer);
  CHECK(properties.at("enable.auto.commit") == "false");
  CHECK(properties.at("enable.auto.offset.store") == "false");
  // relay.ordering: transactional's aborted copies must stay invisible.
  CHECK(properties.at("isolation.level") == "read_committed");
  CHECK(properties.at("auto.offset.reset") == "earliest");
  CHECK(properties.at("group.id") == "notification-planner");
  CHECK(properties.at("bootstrap.servers") == "k1:9092");
}

TEST_CASE("planner config errors come all at once with file:line and key path",
          "[planner-config]") {
  const Loaded loaded = load(
      "mysql:\n"
      "  user: planner\n"
      "  database: app\n"
      "kafka:\n"
      "  topics:\n"
      "    - outbox.order\n"
      "    - bad topic\n"
      "    - outbox.order\n"
      "  properties:\n"
      "    enable.auto.commit: \"true\"\n"
      "    group.id: other\n"
      "    fetch.max.bytess: 10\n"
      "consumer:\n"
      "  name: \"\"\n"
      "  dead_letter_topic: outbox.order\n"
      "  backoff_initial: 5s\n"
      "  backoff_max: 1s\n"
      "  retries: 3\n");
  CHECK_FALSE(loaded.config);
  CHECK(loaded.errors ==
        "planner.yaml:4: kafka.bootstrap_servers: is required\n"
        "planner.yaml:7: kafka.topics[1]: \"bad topic\" is not a valid Kafka topic name: 1-249 "
        "characters of a-z A-Z 0-9 . _ -\n"
        "planner.yaml:8: kafka.topics[2]: \"outbox.order\" is listed twice\n"
        "planner.yaml:10: kafka.properties.enable.auto.commit: must stay false: an offset is "
        "committed only after the event's database transaction committed\n"
        "planner.yaml:11: kafka.properties.group.id: set kafka.group_id instead\n"
        "planner.yaml:12: kafka.properties.fetch.max.bytess: librdkafka rejects it: No such "
        "configuration property: \"fetch.max.bytess\"\n"
        "planner.yaml:14: consumer.name: must not be empty\n"
        "planner.yaml:15: consumer.dead_letter_topic: must not be one of kafka.topics: a dead "
        "letter would be consumed again and dead-lettered again, forever\n"
        "planner.yaml:17: consumer.backoff_max: must not be shorter than consumer.backoff_initial "
        "(5s)\n"
        "planner.yaml:18: consumer.retries: unknown key\n");
}

TEST_CASE("topics and the dead-letter topic are required", "[planner-config]") {
  const Loaded loaded = load(
      "mysql:\n"
      "  user: planner\n"
      "  database: app\n"
      "kafka:\n"
      "  bootstrap_servers: k1:9092\n"
      "  topics: outbox.order\n");
  CHECK_FALSE(loaded.config);
  CHECK(loaded.errors ==
        "planner.yaml:1: consumer.dead_letter_topic: is required\n"
        "planner.yaml:6: kafka.topics: must be a list, got a scalar\n");
}

TEST_CASE("the planner's effective config prints secrets as *****", "[planner-config]") {
  const Loaded loaded =
      load(kMinimal + "  name: planner-eu\nlog:\n  level: debug\n" + "kafka_extra: 1\n");
  CHECK(loaded.errors == "planner.yaml:12: kafka_extra: unknown key\n");
  const Loaded valid = load(
      "mysql:\n  user: planner\n  password: db-secret\n  database: app\n"
      "kafka:\n  bootstrap_servers: k1:9092\n  topics: [outbox.order]\n"
      "  properties:\n    sasl.password: kafka-secret\n"
      "consumer:\n  dead_letter_topic: dlq\n");
  REQUIRE(valid.config);
  const std::string printed = outbox::planner::print_planner_config(*valid.config);
  CHECK(printed.find("db-secret") == std::string::npos);
  CHECK(printed.find("kafka-secret") == std::string::npos);
  CHECK(printed.find("enable.auto.commit: false") != std::string::npos);
  CHECK(printed.find("dead_letter_topic: dlq") != std::string::npos);
}

TEST_CASE("the consumer reads kafka.property_files for both its clients", "[planner-config]") {
  outbox::test::TempDir dir;
  const std::string secret = dir.write("kafka-password", "S3cr3t-Zebra-42\n");
  const Loaded loaded = load(
      "mysql:\n  user: planner\n  database: app\n"
      "kafka:\n  bootstrap_servers: k1:9092\n  topics: [outbox.order]\n"
      "  property_files:\n    sasl.password: " +
      secret + "\nconsumer:\n  dead_letter_topic: dlq\n");
  INFO(loaded.errors);
  REQUIRE(loaded.config);
  const auto& settings = loaded.config->consumer;
  for (const auto& properties : {outbox::consumer::consumer_properties(settings),
                                 outbox::consumer::dead_letter_producer_properties(settings)}) {
    const auto password =
        std::find_if(properties.begin(), properties.end(),
                     [](const outbox::KafkaProperty& p) { return p.name == "sasl.password"; });
    REQUIRE(password != properties.end());
    CHECK(password->file == secret);
    CHECK(password->value.empty());
    CHECK(outbox::make_kafka_conf(properties));
  }
  const std::string printed = outbox::planner::print_planner_config(*loaded.config);
  CHECK(printed.find("S3cr3t-Zebra-42") == std::string::npos);
  CHECK(printed.find("sasl.password: " + secret) != std::string::npos);
}
