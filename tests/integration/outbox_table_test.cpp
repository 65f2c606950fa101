// mysql.table: the relay, outboxctl, the writer's append_event and retention work on the
// configured outbox table. Two relays on two outbox tables of one database do not interfere:
// each claims, publishes and marks only its own table's rows. Checked with the mariadb CLI and
// kcat.
#include <catch2/catch.hpp>

#include <iostream>

#include "append_event.hpp"
#include "harness/sequence_rows.hpp"
#include "message_scenarios.hpp"
#include "poll.hpp"
#include "relay_process.hpp"
#include "test_database.hpp"
#include "test_kafka.hpp"
#include "test_session.hpp"
#include "topic_checks.hpp"

using outbox::test::event_id;
using outbox::test::eventually;
using outbox::test::Outboxctl;
using outbox::test::RelayProcess;
using outbox::test::RelayTestConfig;
using outbox::test::stop_gracefully;
using outbox::test::TestBroker;
using outbox::test::TestDatabase;

namespace {

constexpr int kOrderEvents = 500;
const std::string kBilling = "billing_outbox";

// A second outbox table with the schema sql/ gives outbox_event (columns, generated columns,
// the claim indexes), filled with n PENDING events "bill-<i>" of aggregate type invoice.
void create_billing_outbox(const TestDatabase& db, int n) {
  db.exec("CREATE TABLE " + kBilling + " LIKE outbox_event");
  db.exec("INSERT INTO " + kBilling +
          " (event_id, aggregate_type, aggregate_id, event_type, event_version, payload, status, "
          "created_at) SELECT CONCAT('bill-', LPAD(seq, 31, '0')), 'invoice', CONCAT('inv-', "
          "seq % 50), 'INVOICE_ISSUED', 1, JSON_OBJECT('invoice', seq), 'PENDING', "
          "CURRENT_TIMESTAMP(6) - INTERVAL 1 HOUR + INTERVAL seq MICROSECOND FROM " +
          outbox::harness::sequence_rows(1, n));
}

RelayTestConfig billing_relay() {
  RelayTestConfig settings;
  settings.instance_id = "relay-billing";
  settings.extra_mysql_settings = "  table: " + kBilling + "\n";
  settings.extra_kafka_settings = "  topic: billing.{aggregate_type}\n";
  return settings;
}

}  // namespace

TEST_CASE("two relays on two outbox tables in one database do not interfere", "[e2e][table]") {
  TestDatabase db;
  db.insert_events(kOrderEvents, "ord");
  create_billing_outbox(db, kOrderEvents);
  // The writer library appends to the configured table inside the caller's transaction.
  {
    const auto session = outbox::test::open_session(db);
    outbox::writer::OutboxEventRecord event{
        event_id("bill-app", 1), "invoice", "inv-app", "INVOICE_ISSUED", 1, "{\"invoice\": 0}", {}};
    outbox::writer::append_event(*session, event, outbox::SqlIdentifier::parse(kBilling).value());
    session->commit();
  }
  REQUIRE(db.scalar("SELECT COUNT(*) FROM " + kBilling) == std::to_string(kOrderEvents + 1));
  REQUIRE(db.count("event_id = '" + event_id("bill-app", 1) + "'") == 0);

  TestBroker broker(3, 8, {"outbox.order", "billing.invoice"});
  RelayTestConfig orders;
  orders.instance_id = "relay-orders";
  RelayProcess orders_relay(db, broker.bootstrap(), orders);
  RelayProcess billing(db, broker.bootstrap(), billing_relay());
  REQUIRE(eventually([&] {
    return db.count("status = 'PUBLISHED'") == kOrderEvents &&
           db.scalar("SELECT COUNT(*) FROM " + kBilling + " WHERE status = 'PUBLISHED'") ==
               std::to_string(kOrderEvents + 1);
  }));
  stop_gracefully(orders_relay);
  stop_gracefully(billing);
  CHECK(outbox::test::logged(billing, "table billing_outbox"));

  // Each row was claimed and marked by its own table's relay only.
  CHECK(db.count("published_by NOT LIKE 'relay-orders/%'") == 0);
  CHECK(db.scalar("SELECT COUNT(*) FROM " + kBilling +
                  " WHERE published_by NOT LIKE 'relay-billing/%'") == "0");
  const auto order_records = outbox::test::read_topic(broker.bootstrap(), "outbox.order");
  const auto billing_records = outbox::test::read_topic(broker.bootstrap(), "billing.invoice");
  const auto orders_tally = outbox::test::tally(order_records);
  const auto billing_tally = outbox::test::tally(billing_records);
  CHECK(orders_tally.records == kOrderEvents);
  CHECK(orders_tally.duplicates() == 0);
  CHECK(billing_tally.records == kOrderEvents + 1);
  CHECK(billing_tally.duplicates() == 0);
  outbox::test::check_insert_events_records(order_records, "ord", 100);
  for (const auto& record : billing_records) {
    CHECK(record.headers.at("aggregate_type") == "invoice");
    CHECK(record.headers.at("event_id").rfind("bill", 0) == 0);
  }
  std::cout << "[kcat] table name (mysql.table: billing_outbox): billing.invoice "
            << billing_records.front().partition << "@" << billing_records.front().offset
            << " key=" << billing_records.front().key
            << " event_id=" << billing_records.front().headers.at("event_id")
            << " value=" << billing_records.front().value << "\n";
}

TEST_CASE("outboxctl and retention work on the configured table", "[outboxctl][table]") {
  TestDatabase db;
  db.insert_events(3, "ord");
  create_billing_outbox(db, 3);
  // Published 20 days ago, in both tables.
  for (const std::string& table : {std::string("outbox_event"), kBilling}) {
    db.exec("UPDATE " + table +
            " SET status = 'PUBLISHED', published_at = CURRENT_TIMESTAMP(6) - INTERVAL 20 DAY, "
            "created_at = created_at - INTERVAL 20 DAY WHERE event_id LIKE '%1'");
    db.exec("UPDATE " + table +
            " SET status = 'FAILED', attempts = 10, last_error = 'x' WHERE event_id LIKE '%2'");
  }
  RelayTestConfig settings = billing_relay();
  const Outboxctl outboxctl(db,
                            "retention:\n"
                            "  broker_redelivery_window: 7d\n"
                            "  published_after: 10d\n",
                            settings);
  const std::string bill_1 = "bill-" + std::string(30, '0') + "1";
  const auto event = outboxctl.run({"--json", "event", bill_1});
  INFO(event.err);
  CHECK(event.status == 0);
  CHECK(outbox::test::jq(".event_id + \" \" + .status + \" \" + .aggregate_type", event.out) ==
        bill_1 + " PUBLISHED invoice");
  // The other table's events are not this outboxctl's.
  CHECK(outboxctl.run({"event", event_id("ord", 1)}).status == 1);
  const auto backlog = outboxctl.run({"--json", "backlog"});
  CHECK(outbox::test::jq("[.by_status.PENDING, .by_status.FAILED] | map(tostring) | join(\" \")",
                         backlog.out) == "1 1");
  const std::string bill_2 = "bill-" + std::string(30, '0') + "2";
  CHECK(outboxctl.run({"requeue", bill_2}).status == 0);
  CHECK(db.scalar("SELECT status FROM " + kBilling + " WHERE event_id = '" + bill_2 + "'") ==
        "PENDING");
  CHECK(db.scalar("SELECT status FROM outbox_event WHERE event_id = '" + event_id("ord", 2) +
                  "'") == "FAILED");
  const auto purged = outboxctl.run({"--json", "purge"});
  INFO(purged.err);
  CHECK(purged.status == 0);
  CHECK(outbox::test::jq(".outbox_event.deleted", purged.out) == "1");
  CHECK(db.scalar("SELECT COUNT(*) FROM " + kBilling + " WHERE event_id = '" + bill_1 + "'") ==
        "0");
  CHECK(db.count("event_id = '" + event_id("ord", 1) + "'") == 1);  // untouched
}
