// What arrives on Kafka under the message-shape settings (kafka.profile, kafka.headers,
// kafka.tombstones) and for binary payloads: outbox-relay against a real MariaDB and the test
// broker, read back byte for byte with kcat (read_topic_exact), never through our own code.
#include <catch2/catch.hpp>

#include <iostream>

#include "cloudevents_check.hpp"
#include "message_scenarios.hpp"
#include "poll.hpp"
#include "relay_process.hpp"
#include "test_database.hpp"
#include "test_kafka.hpp"

using outbox::harness::ExactRecord;
using outbox::harness::read_topic_exact;
using outbox::test::describe_record;
using outbox::test::event_id;
using outbox::test::eventually;
using outbox::test::RelayProcess;
using outbox::test::RelayTestConfig;
using outbox::test::stop_gracefully;
using outbox::test::TestBroker;
using outbox::test::TestDatabase;

namespace {

using Headers = std::vector<std::pair<std::string, std::optional<std::string>>>;

// Runs one relay with `kafka_settings` until `published` rows are PUBLISHED, stops it, and
// returns what outbox.order holds.
std::vector<ExactRecord> publish(const TestDatabase& db, const TestBroker& broker,
                                 const std::string& kafka_settings, long long published) {
  RelayTestConfig settings;
  settings.extra_kafka_settings = kafka_settings;
  RelayProcess relay(db, broker.bootstrap(), settings);
  REQUIRE(eventually([&] { return db.count("status = 'PUBLISHED'") == published; }));
  stop_gracefully(relay);
  return read_topic_exact(broker.bootstrap(), "outbox.order");
}

}  // namespace

TEST_CASE("kafka.profile debezium sends Debezium's key, id header, topic and value",
          "[e2e][message-shape]") {
  TestBroker broker(3, 8, {"outbox.event.order"});
  outbox::test::run_debezium_profile(broker.bootstrap());
}

TEST_CASE("kafka.profile cloudevents: the CloudEvents SDK decodes every message as its row",
          "[e2e][message-shape]") {
  // The consumer library's side runs in consumer_tests (planner_delivery_test.cpp).
  TestBroker broker(3, 8, {"outbox.order", "outbox.order.dead-letter"});
  outbox::test::run_cloudevents_profile(broker.bootstrap(), RelayTestConfig{}, false);
}

TEST_CASE("binary payloads arrive byte for byte (LONGBLOB, VARBINARY)", "[e2e][message-shape]") {
  for (const char* column_type : {"LONGBLOB", "VARBINARY(1024)"}) {
    INFO(column_type);
    TestBroker broker(3, 8, {"outbox.order"});
    outbox::test::run_binary_payloads(broker.bootstrap(), column_type);
  }
}

TEST_CASE("static kafka.headers arrive on every message with their exact values",
          "[e2e][message-shape]") {
  TestDatabase db;
  db.insert_events(2, "hdr");
  TestBroker broker(3, 8, {"outbox.order"});
  const auto records = publish(db, broker,
                               "  headers:\n"
                               "    content-type: {value: application/json}\n"
                               "    x-note: {value: \"a,b=c, d\"}\n",
                               2);
  REQUIRE(records.size() == 2);
  for (const ExactRecord& record : records) {
    INFO(describe_record("outbox.order", record));
    REQUIRE(record.header("event_id"));
    CHECK(record.headers == Headers{{"event_id", record.header("event_id")},
                                    {"event_type", "ORDER_ACCEPTED"},
                                    {"event_version", "1"},
                                    {"aggregate_type", "order"},
                                    {"content-type", "application/json"},
                                    {"x-note", "a,b=c, d"}});
  }
  std::cout << "[kcat] static headers: " << describe_record("outbox.order", records[0]) << "\n";
}

TEST_CASE("a JSON null payload arrives as a tombstone with kafka.tombstones",
          "[e2e][message-shape]") {
  TestDatabase db;
  db.insert_events(2, "tomb");
  db.exec("UPDATE outbox_event SET payload = 'null' WHERE event_id = '" + event_id("tomb", 1) +
          "'");
  TestBroker broker(3, 8, {"outbox.order"});
  const auto records = publish(db, broker, "  tombstones: true\n", 2);
  REQUIRE(records.size() == 2);
  for (const ExactRecord& record : records) {
    INFO(describe_record("outbox.order", record));
    if (record.header("event_id") == event_id("tomb", 1)) {
      CHECK_FALSE(record.value);     // null, not the four bytes "null" and not empty
      CHECK(record.key == "agg-1");  // compaction deletes by key
      CHECK(record.header("event_type") == "ORDER_ACCEPTED");
      std::cout << "[kcat] tombstone: " << describe_record("outbox.order", record) << "\n";
    } else {
      CHECK(record.value == "{\"seq\": 2}");
    }
  }
}

// The payload column's type decides what reaches Kafka. MySQL stores JSON in a binary form and
// gives back its own text of it (keys sorted, one space after ':' and ','): the relay sends that
// text, not the bytes the writer stored. MariaDB's JSON is LONGTEXT: the bytes as written. A
// LONGTEXT (or LONGBLOB) payload column keeps the writer's bytes on both servers.
TEST_CASE("a JSON payload arrives as the server gives it back, a LONGTEXT one byte for byte",
          "[e2e][message-shape]") {
  const std::string written = "{\"zeta\":1,  \"alpha\" : [1,2],\"b\":\"\xc3\xa9\"}";
  for (const char* column_type : {"JSON", "LONGTEXT"}) {
    INFO(column_type);
    TestDatabase db;
    if (std::string(column_type) != "JSON") {
      db.exec("ALTER TABLE outbox_event MODIFY payload " + std::string(column_type) + " NOT NULL");
    }
    std::string hex;
    for (const char c : written) {
      static constexpr char kHex[] = "0123456789abcdef";
      hex += kHex[static_cast<unsigned char>(c) >> 4];
      hex += kHex[static_cast<unsigned char>(c) & 0xf];
    }
    db.exec(
        "INSERT INTO outbox_event (event_id, aggregate_type, aggregate_id, event_type, "
        "event_version, payload, status, created_at) VALUES ('" +
        event_id("json", 1) + "', 'order', 'agg-1', 'ORDER_ACCEPTED', 1, CONVERT(X'" + hex +
        "' USING utf8mb4), 'PENDING', CURRENT_TIMESTAMP(6))");
    const bool normalised = std::string(column_type) == "JSON" && db.on_mysql();
    const std::string expected = normalised ? db.stored_json(written) : written;
    // On MySQL's JSON the text really differs from what was written, so this case can fail.
    CHECK((expected != written) == normalised);
    TestBroker broker(3, 8, {"outbox.order"});
    const auto records = publish(db, broker, "", 1);
    REQUIRE(records.size() == 1);
    REQUIRE(records[0].value);
    CHECK(*records[0].value == expected);
    std::cout << "[kcat] payload from a " << column_type << " column on "
              << (db.on_mysql() ? "MySQL" : "MariaDB") << ": "
              << describe_record("outbox.order", records[0]) << "\n";
  }
}
