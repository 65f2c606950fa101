// What a claimed row becomes on Kafka: key, value and headers under each kafka.profile, the
// tombstone of a JSON null payload, static headers and the trace context.
#include <catch2/catch.hpp>

#include <utility>
#include <vector>

#include "publish/message_shape.hpp"
#include "relay_config_loading.hpp"

using outbox::MessageProfile;
using outbox::MessageSettings;
using outbox::MessageShape;
using outbox::OutboxEvent;

namespace {

using Headers = std::vector<std::pair<std::string, std::string>>;

Headers read_back(const outbox::RdKafkaHeaders& headers) {
  Headers out;
  const char* name = nullptr;
  const void* value = nullptr;
  size_t size = 0;
  for (size_t i = 0; rd_kafka_header_get_all(headers.get(), i, &name, &value, &size) ==
                     RD_KAFKA_RESP_ERR_NO_ERROR;
       ++i) {
    out.emplace_back(name, std::string(static_cast<const char*>(value), size));
  }
  return out;
}

OutboxEvent order_event() {
  OutboxEvent event;
  event.event_id = "4d47e190-0402-4048-bc2c-89dd54343cdc";
  event.aggregate_type = "order";
  event.aggregate_id = "1";
  event.event_type = "ORDER_ACCEPTED";
  event.event_version = 3;
  event.payload = "{\"id\": 1}";
  return event;
}

}  // namespace

TEST_CASE("the default profile sends the relay's four headers", "[message-shape]") {
  const MessageShape shape{MessageSettings{}};
  const OutboxEvent event = order_event();
  CHECK(shape.key(event) == "1");
  CHECK(shape.value(event) == "{\"id\": 1}");
  CHECK(read_back(shape.headers(event)) ==
        Headers{{"event_id", "4d47e190-0402-4048-bc2c-89dd54343cdc"},
                {"event_type", "ORDER_ACCEPTED"},
                {"event_version", "3"},
                {"aggregate_type", "order"}});
}

TEST_CASE("the debezium profile sends Debezium's id header and nothing else", "[message-shape]") {
  MessageSettings settings;
  settings.profile = MessageProfile::kDebezium;
  const MessageShape shape{settings};
  const OutboxEvent event = order_event();
  CHECK(shape.key(event) == "1");
  CHECK(shape.value(event) == "{\"id\": 1}");
  CHECK(read_back(shape.headers(event)) == Headers{{"id", "4d47e190-0402-4048-bc2c-89dd54343cdc"}});
}

TEST_CASE("trace context and kafka.headers follow the profile's headers", "[message-shape]") {
  MessageSettings settings;
  settings.profile = MessageProfile::kDebezium;
  settings.headers = {{"content-type", "application/json", "", 1},
                      {"source", "a,b=c", "", 2},
                      {"tenant", "", "tenant_id", 3}};
  // The columns the claim reads for this shape, in the order OutboxEvent::columns holds them.
  REQUIRE(outbox::message_columns(settings) ==
          std::vector<std::string>{"traceparent", "tracestate", "tenant_id"});
  const MessageShape shape{settings};
  OutboxEvent event = order_event();
  event.columns = {"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
                   "rojo=00f067aa0ba902b7", "t-7"};
  CHECK(read_back(shape.headers(event)) ==
        Headers{{"id", "4d47e190-0402-4048-bc2c-89dd54343cdc"},
                {"traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"},
                {"tracestate", "rojo=00f067aa0ba902b7"},
                {"content-type", "application/json"},
                {"source", "a,b=c"},
                {"tenant", "t-7"}});
  // A NULL column leaves its header out; a static header stays.
  event.columns = {std::nullopt, std::nullopt, std::nullopt};
  CHECK(read_back(shape.headers(event)) == Headers{{"id", "4d47e190-0402-4048-bc2c-89dd54343cdc"},
                                                   {"content-type", "application/json"},
                                                   {"source", "a,b=c"}});
}

TEST_CASE("kafka.key_column keys the message by another column", "[message-shape]") {
  MessageSettings settings;
  settings.key_column = "customer_id";
  settings.trace_context = false;
  settings.headers = {{"customer", "", "customer_id", 1}};
  // One column read once, used twice.
  REQUIRE(outbox::message_columns(settings) == std::vector<std::string>{"customer_id"});
  const MessageShape shape{settings};
  OutboxEvent event = order_event();
  event.columns = {"c-42"};
  CHECK(shape.key(event) == "c-42");
  CHECK(read_back(shape.headers(event)).back() ==
        std::pair<std::string, std::string>{"customer", "c-42"});
  // NULL: a message without a key (librdkafka's partitioner then picks any partition).
  event.columns = {std::nullopt};
  CHECK(shape.key(event).data() == nullptr);
  // The default key needs no column.
  CHECK(outbox::message_columns(MessageSettings{}) ==
        std::vector<std::string>{"traceparent", "tracestate"});
  CHECK(MessageShape{MessageSettings{}}.key(order_event()) == "1");
}

TEST_CASE("a JSON null payload is a tombstone only when kafka.tombstones is on",
          "[message-shape]") {
  OutboxEvent event = order_event();
  event.payload = " null\n";
  CHECK(MessageShape{MessageSettings{}}.value(event) == " null\n");
  MessageSettings settings;
  settings.tombstones = true;
  const MessageShape shape{settings};
  CHECK(shape.is_tombstone(event));
  CHECK(shape.value(event).data() == nullptr);
  CHECK(shape.key(event) == "1");
  for (const char* payload : {"\"null\"", "nullx", "{}", "", "nul", "[null]"}) {
    event.payload = payload;
    INFO(payload);
    CHECK_FALSE(shape.is_tombstone(event));
    CHECK(shape.value(event).data() != nullptr);
  }
}

TEST_CASE("the message settings are read, defaulted and checked", "[message-shape][config]") {
  const auto loaded =
      outbox::test::load_relay_config_text(outbox::test::kMinimalRelayConfig +
                                           "  profile: debezium\n"
                                           "  tombstones: true\n"
                                           "  headers:\n"
                                           "    content-type: {value: application/json}\n"
                                           "    x-source:\n"
                                           "      value: orders\n");
  INFO(loaded.errors);
  REQUIRE(loaded.config);
  const auto& kafka = loaded.config->kafka;
  CHECK(kafka.message.profile == MessageProfile::kDebezium);
  CHECK(kafka.message.tombstones);
  CHECK(kafka.topic == "outbox.event.{aggregate_type}");
  REQUIRE(kafka.message.headers.size() == 2);
  CHECK(kafka.message.headers[0].name == "content-type");
  CHECK(kafka.message.headers[0].value == "application/json");
  CHECK(kafka.message.headers[1].name == "x-source");

  const auto defaults = outbox::test::load_relay_config_text(outbox::test::kMinimalRelayConfig);
  REQUIRE(defaults.config);
  CHECK(defaults.config->kafka.message.profile == MessageProfile::kOutboxRelay);
  CHECK_FALSE(defaults.config->kafka.message.tombstones);
  CHECK(defaults.config->kafka.topic == "outbox.{aggregate_type}");

  // An explicit topic wins over the profile's default.
  const auto explicit_topic = outbox::test::load_relay_config_text(
      outbox::test::kMinimalRelayConfig + "  profile: debezium\n  topic: events.{event_type}\n");
  REQUIRE(explicit_topic.config);
  CHECK(explicit_topic.config->kafka.topic == "events.{event_type}");
}

TEST_CASE("wrong message settings are named with file and line", "[message-shape][config]") {
  const auto loaded =
      outbox::test::load_relay_config_text(outbox::test::kMinimalRelayConfig +         // lines 1-5
                                           "  profile: kafka-connect\n"                // 6
                                           "  tombstones: yes please\n"                // 7
                                           "  key_column: customer-id\n"               // 8
                                           "  headers:\n"                              // 9
                                           "    event_id: {value: x}\n"                // 10
                                           "    traceparent: {column: traceparent}\n"  // 11
                                           "    content-type: application/json\n"      // 12
                                           "    x-empty: {}\n"                         // 13
                                           "    x-typo: {valeu: 1}\n"                  // 14
                                           "    x-both: {value: 1, column: tenant_id}\n"  // 15
                                           "    x-tenant: {column: \"tenant id\"}\n");    // 16
  CHECK(loaded.errors ==
        "relay.yaml:6: kafka.profile: must be one of outbox-relay, debezium, cloudevents; got "
        "\"kafka-connect\"\n"
        "relay.yaml:7: kafka.tombstones: must be true or false, got \"yes please\"\n"
        "relay.yaml:8: kafka.key_column: \"customer-id\" may hold only letters, digits and '_' (a "
        "plain identifier), not '-'\n"
        "relay.yaml:10: kafka.headers.event_id: is a header the relay sets itself (kafka.profile: "
        "outbox-relay); choose another name\n"
        "relay.yaml:11: kafka.headers.traceparent: is a header the relay sets itself "
        "(kafka.profile: outbox-relay); choose another name\n"
        "relay.yaml:12: kafka.headers.content-type: must be a mapping, got a scalar\n"
        "relay.yaml:13: kafka.headers.x-empty: needs value: (a fixed value) or column: (a column "
        "of the outbox table)\n"
        "relay.yaml:14: kafka.headers.x-typo: needs value: (a fixed value) or column: (a column "
        "of the outbox table)\n"
        "relay.yaml:14: kafka.headers.x-typo.valeu: unknown key (did you mean "
        "kafka.headers.x-typo.value?)\n"
        "relay.yaml:15: kafka.headers.x-both.column: set either value: or column:, not both\n"
        "relay.yaml:16: kafka.headers.x-tenant.column: \"tenant id\" may hold only letters, "
        "digits and '_' (a plain identifier), not ' '\n");
}

TEST_CASE("mysql.table is a plain identifier, printed with the rest", "[message-shape][config]") {
  const auto custom = outbox::test::load_relay_config_text(
      "mysql:\n  user: relay\n  database: app\n  table: billing_outbox\n"
      "kafka:\n  bootstrap_servers: k:9092\n  key_column: customer_id\n"
      "  headers:\n    tenant: {column: tenant_id}\n    content-type: {value: application/json}\n"
      "  trace_context: false\n");
  INFO(custom.errors);
  REQUIRE(custom.config);
  CHECK(custom.config->outbox_table == "billing_outbox");
  CHECK(outbox::claim_schema(*custom.config).table() == "`billing_outbox`");
  CHECK(outbox::claim_schema(*custom.config).message_columns() ==
        std::vector<std::string>{"`customer_id`", "`tenant_id`"});
  const std::string printed = outbox::print_relay_config(*custom.config);
  CHECK(printed.find("  table: billing_outbox\n") != std::string::npos);
  CHECK(printed.find("  key_column: customer_id\n") != std::string::npos);
  CHECK(printed.find("    tenant: {column: tenant_id}\n") != std::string::npos);
  CHECK(printed.find("    content-type: {value: application/json}\n") != std::string::npos);
  CHECK(printed.find("  trace_context: false\n") != std::string::npos);

  const auto bad = outbox::test::load_relay_config_text(
      "mysql:\n  user: relay\n  database: app\n  table: app.outbox\n"
      "kafka:\n  bootstrap_servers: k:9092\n");
  CHECK(bad.errors ==
        "relay.yaml:4: mysql.table: \"app.outbox\" may hold only letters, digits and '_' (a plain "
        "identifier), not '.'\n");
}

TEST_CASE("the cloudevents profile sends CloudEvents 1.0 in the Kafka binding's binary mode",
          "[message-shape]") {
  MessageSettings settings;
  settings.profile = MessageProfile::kCloudEvents;
  settings.cloudevents_source = "https://shop.example.com/orders";
  // created_at (its time) first, then the trace context.
  REQUIRE(outbox::message_columns(settings) ==
          std::vector<std::string>{"created_at", "traceparent", "tracestate"});
  const MessageShape shape{settings};
  OutboxEvent event = order_event();
  event.columns = {"2026-12-06 10:00:00.123456",
                   "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", std::nullopt};
  CHECK(shape.key(event) == "1");
  CHECK(shape.value(event) == "{\"id\": 1}");  // the data, as is
  CHECK(read_back(shape.headers(event)) ==
        Headers{{"ce_specversion", "1.0"},
                {"ce_id", "4d47e190-0402-4048-bc2c-89dd54343cdc"},
                {"ce_source", "https://shop.example.com/orders"},
                {"ce_type", "ORDER_ACCEPTED"},
                {"ce_time", "2026-12-06T10:00:00.123456Z"},
                {"ce_subject", "1"},
                {"ce_aggregatetype", "order"},
                {"ce_eventversion", "3"},
                {"content-type", "application/json"},
                {"traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"},
                {"ce_traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}});
  CHECK(outbox::rfc3339_utc("2026-12-06 10:00:00") == "2026-12-06T10:00:00Z");
}

TEST_CASE("kafka.cloudevents_source is read with the cloudevents profile only",
          "[message-shape][config]") {
  const auto loaded = outbox::test::load_relay_config_text(
      outbox::test::kMinimalRelayConfig +
      "  profile: cloudevents\n  cloudevents_source: /billing/orders\n");
  INFO(loaded.errors);
  REQUIRE(loaded.config);
  CHECK(loaded.config->kafka.message.profile == MessageProfile::kCloudEvents);
  CHECK(loaded.config->kafka.message.cloudevents_source == "/billing/orders");
  CHECK(loaded.config->kafka.topic == "outbox.{aggregate_type}");
  const auto defaulted = outbox::test::load_relay_config_text(outbox::test::kMinimalRelayConfig +
                                                              "  profile: cloudevents\n");
  REQUIRE(defaulted.config);
  CHECK(defaulted.config->kafka.message.cloudevents_source == "/outbox-relay");

  const auto wrong = outbox::test::load_relay_config_text(outbox::test::kMinimalRelayConfig +
                                                          "  cloudevents_source: /billing\n");
  CHECK_FALSE(wrong.config);
  CHECK(wrong.errors.find("kafka.cloudevents_source: is read only with kafka.profile: "
                          "cloudevents") != std::string::npos);
  const auto spaced = outbox::test::load_relay_config_text(
      outbox::test::kMinimalRelayConfig +
      "  profile: cloudevents\n  cloudevents_source: billing orders\n");
  CHECK_FALSE(spaced.config);
  CHECK(spaced.errors.find("kafka.cloudevents_source: must be a URI-reference") !=
        std::string::npos);
  const auto reserved = outbox::test::load_relay_config_text(
      outbox::test::kMinimalRelayConfig +
      "  profile: cloudevents\n  headers:\n    ce_type: {value: x}\n");
  CHECK_FALSE(reserved.config);
  CHECK(reserved.errors.find("kafka.headers.ce_type: is a header the relay sets itself "
                             "(kafka.profile: cloudevents)") != std::string::npos);
}
