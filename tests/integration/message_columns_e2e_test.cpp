// Messages built from the outbox table's own columns: kafka.headers from columns (a NULL
// omits the header), kafka.key_column, the W3C trace context columns; each column checked
// against the live table at start-up. outbox-relay against MariaDB and the test broker, read
// back byte for byte with kcat.
#include <catch2/catch.hpp>

#include <chrono>
#include <iostream>
#include <map>

#include "message_scenarios.hpp"
#include "poll.hpp"
#include "relay_process.hpp"
#include "test_database.hpp"
#include "test_kafka.hpp"

using namespace std::chrono_literals;
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

// The 1-based line of the config file that holds `text`.
int line_of(const std::string& file_text, const std::string& text) {
  const size_t at = file_text.find(text);
  REQUIRE(at != std::string::npos);
  return 1 + static_cast<int>(std::count(file_text.begin(), file_text.begin() + at, '\n'));
}

const ExactRecord& record_of(const std::vector<ExactRecord>& records, const std::string& id) {
  for (const ExactRecord& record : records) {
    if (record.header("event_id") == id) return record;
  }
  FAIL("no record of event " << id);
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("kafka.headers from columns carry each row's value and omit NULLs",
          "[e2e][message-columns]") {
  TestDatabase db;
  db.exec(
      "ALTER TABLE outbox_event ADD COLUMN tenant_id VARCHAR(32) NULL, "
      "ADD COLUMN schema_version INT NULL");
  db.insert_events(3, "col");
  db.exec(
      "UPDATE outbox_event SET tenant_id = CONCAT('tenant,', RIGHT(event_id, 1)), "
      "schema_version = 7 WHERE event_id <> '" +
      event_id("col", 3) + "'");
  TestBroker broker(3, 8, {"outbox.order"});
  RelayTestConfig settings;
  settings.extra_kafka_settings =
      "  headers:\n"
      "    tenant: {column: tenant_id}\n"
      "    schema-version: {column: schema_version}\n"
      "    content-type: {value: application/json}\n";
  RelayProcess relay(db, broker.bootstrap(), settings);
  REQUIRE(eventually([&] { return db.count("status = 'PUBLISHED'") == 3; }));
  stop_gracefully(relay);
  const auto records = read_topic_exact(broker.bootstrap(), "outbox.order");
  REQUIRE(records.size() == 3);
  const ExactRecord& with_tenant = record_of(records, event_id("col", 1));
  INFO(describe_record("outbox.order", with_tenant));
  CHECK(with_tenant.headers == Headers{{"event_id", event_id("col", 1)},
                                       {"event_type", "ORDER_ACCEPTED"},
                                       {"event_version", "1"},
                                       {"aggregate_type", "order"},
                                       {"tenant", "tenant,1"},
                                       {"schema-version", "7"},
                                       {"content-type", "application/json"}});
  // Row 3's columns are NULL: those headers are not there at all (the static one is).
  const ExactRecord& without = record_of(records, event_id("col", 3));
  INFO(describe_record("outbox.order", without));
  CHECK(without.headers == Headers{{"event_id", event_id("col", 3)},
                                   {"event_type", "ORDER_ACCEPTED"},
                                   {"event_version", "1"},
                                   {"aggregate_type", "order"},
                                   {"content-type", "application/json"}});
  std::cout << "[kcat] headers from columns: " << describe_record("outbox.order", with_tenant)
            << "\n[kcat] headers from NULL columns: " << describe_record("outbox.order", without)
            << "\n";
}

TEST_CASE("a column the table lacks stops the relay at start-up, naming key and column",
          "[e2e][message-columns]") {
  TestDatabase db;
  db.exec("ALTER TABLE outbox_event DROP COLUMN traceparent, DROP COLUMN tracestate");
  db.insert_events(1, "nocol");
  TestBroker broker;
  RelayTestConfig settings;
  settings.extra_kafka_settings =
      "  key_column: customer_id\n"
      "  headers:\n"
      "    tenant: {column: tenant_idx}\n";
  RelayProcess relay(db, broker.bootstrap(), settings);
  const auto status = relay.process().wait_exit(60s);
  INFO(relay.log());
  REQUIRE(status.has_value());
  CHECK(*status == 78);  // EX_CONFIG: a restart will not fix it
  const std::string file = relay.config_file();
  const std::string text = outbox::test::read_text_file(file);
  const std::string columns =
      "(its columns: event_id, aggregate_type, aggregate_id, event_type, event_version, "
      "payload, status, lease_owner, lease_until, created_at, published_at, published_by, "
      "attempts, next_attempt_at, last_error, unpublished, lease_expiries, payload_bytes)";
  CHECK(relay.log().find(file + ":" + std::to_string(line_of(text, "  key_column:")) +
                         ": kafka.key_column: table outbox_event has no column customer_id " +
                         columns) != std::string::npos);
  CHECK(relay.log().find(file + ":" + std::to_string(line_of(text, "    tenant:")) +
                         ": kafka.headers.tenant: table outbox_event has no column tenant_idx " +
                         columns) != std::string::npos);
  // kafka.trace_context is on by default; its line is the kafka: section's.
  CHECK(relay.log().find(file + ":" + std::to_string(line_of(text, "kafka:")) +
                         ": kafka.trace_context: table outbox_event has no column traceparent "
                         "(apply sql/012_outbox_trace_context.sql, or set kafka.trace_context: "
                         "false)") != std::string::npos);
  CHECK(db.count("status = 'PENDING'") == 1);  // nothing was claimed
}

TEST_CASE("kafka.key_column keys messages by another column, and order still follows the aggregate",
          "[e2e][message-columns]") {
  TestDatabase db;
  db.exec("ALTER TABLE outbox_event ADD COLUMN customer_id VARCHAR(32) NULL");
  // One aggregate, three versions, each keyed by a different customer; version 3 is the
  // oldest row by created_at, so only per-aggregate ordering keeps it behind 1 and 2. A NULL
  // key column sends a message without a key.
  for (int version : {3, 1, 2}) {
    db.exec(
        "INSERT INTO outbox_event (event_id, aggregate_type, aggregate_id, event_type, "
        "event_version, payload, status, created_at, customer_id) VALUES ('" +
        event_id("key", version) + "', 'order', 'order-9', 'ORDER_CHANGED', " +
        std::to_string(version) + ", '{}', 'PENDING', CURRENT_TIMESTAMP(6) + INTERVAL " +
        std::to_string(version == 3 ? 0 : version) + " MICROSECOND, " +
        (version == 2 ? std::string("NULL") : "'customer-" + std::to_string(version) + "'") + ")");
  }
  TestBroker broker(3, 8, {"outbox.order"});
  RelayTestConfig settings;
  settings.extra_kafka_settings = "  key_column: customer_id\n";
  RelayProcess relay(db, broker.bootstrap(), settings);
  REQUIRE(eventually([&] { return db.count("status = 'PUBLISHED'") == 3; }));
  stop_gracefully(relay);
  const auto records = read_topic_exact(broker.bootstrap(), "outbox.order");
  REQUIRE(records.size() == 3);
  CHECK(record_of(records, event_id("key", 1)).key == "customer-1");
  CHECK_FALSE(record_of(records, event_id("key", 2)).key);  // NULL: no key
  CHECK(record_of(records, event_id("key", 3)).key == "customer-3");
  // Sent in version order: each version only after the one before it was confirmed. The three
  // keys hash to different partitions, so the topic's offsets cannot tell; the producer's
  // CreateTime (taken at hand-over) can, as can the marks (one claim may take the whole chain
  // and mark it in one statement: equal times).
  std::map<std::string, long long> created_ms;
  for (const outbox::harness::KafkaRecord& record :
       outbox::harness::read_topic(broker.bootstrap(), "outbox.order")) {
    created_ms[record.headers.at("event_id")] = record.timestamp_ms;
  }
  CHECK(created_ms.at(event_id("key", 1)) <= created_ms.at(event_id("key", 2)));
  CHECK(created_ms.at(event_id("key", 2)) <= created_ms.at(event_id("key", 3)));
  CHECK(db.scalar("SELECT COUNT(*) FROM outbox_event a JOIN outbox_event b ON a.event_version < "
                  "b.event_version WHERE a.published_at > b.published_at") == "0");
  std::cout << "[kcat] key from a column: "
            << describe_record("outbox.order", record_of(records, event_id("key", 1))) << "\n";
}

TEST_CASE("the relay sends the stored W3C trace context as traceparent and tracestate headers",
          "[e2e][message-columns][trace]") {
  TestDatabase db;
  db.insert_events(2, "trace");
  db.exec(
      "UPDATE outbox_event SET traceparent = "
      "'00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', tracestate = "
      "'rojo=00f067aa0ba902b7,congo=t61rcWkgMzE' WHERE event_id = '" +
      event_id("trace", 1) + "'");
  TestBroker broker(3, 8, {"outbox.order"});
  RelayProcess relay(db, broker.bootstrap(), RelayTestConfig{});
  REQUIRE(eventually([&] { return db.count("status = 'PUBLISHED'") == 2; }));
  stop_gracefully(relay);
  const auto records = read_topic_exact(broker.bootstrap(), "outbox.order");
  const ExactRecord& traced = record_of(records, event_id("trace", 1));
  CHECK(traced.header("traceparent") == "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
  CHECK(traced.header("tracestate") == "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE");
  const ExactRecord& untraced = record_of(records, event_id("trace", 2));
  CHECK(untraced.headers.size() == 4);  // the NULL columns send nothing
  std::cout << "[kcat] trace context: " << describe_record("outbox.order", traced) << "\n";
}

TEST_CASE("the debezium profile with Debezium's documented type header from event_type",
          "[e2e][message-columns]") {
  // Debezium's docs place the event type in a header with
  // table.fields.additional.placement=type:header:eventType; here a header from a column.
  TestDatabase db;
  db.insert_events(1, "dbzt");
  TestBroker broker(3, 8, {"outbox.event.order"});
  RelayTestConfig settings;
  settings.extra_kafka_settings =
      "  profile: debezium\n"
      "  headers:\n"
      "    eventType: {column: event_type}\n";
  RelayProcess relay(db, broker.bootstrap(), settings);
  REQUIRE(eventually([&] { return db.count("status = 'PUBLISHED'") == 1; }));
  stop_gracefully(relay);
  const auto records = read_topic_exact(broker.bootstrap(), "outbox.event.order");
  REQUIRE(records.size() == 1);
  INFO(describe_record("outbox.event.order", records[0]));
  CHECK(records[0].key == "agg-1");
  CHECK(records[0].headers ==
        Headers{{"id", event_id("dbzt", 1)}, {"eventType", "ORDER_ACCEPTED"}});
  std::cout << "[kcat] debezium profile with a type header: "
            << describe_record("outbox.event.order", records[0]) << "\n";
}
