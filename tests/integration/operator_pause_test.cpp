// outboxctl pause / resume / paused against the relay on the mock cluster (the real cluster's
// run of the same scenario is tests/kafka/kafka_operator_pause_test.cpp): a paused topic's
// events wait in the database, no attempt counted, while every other topic flows; two relays
// obey; a kill -9 and a restart keep the pause; resume releases the held events in
// per-aggregate order. Then what is not the scenario's: a pause ended with no relay running,
// refusals, and a database without outbox_pause.
#include <catch2/catch.hpp>

#include "operator_pause_scenario.hpp"
#include "poll.hpp"
#include "relay_process.hpp"
#include "test_database.hpp"
#include "test_kafka.hpp"

using namespace std::chrono_literals;
using outbox::test::eventually;
using outbox::test::logged;
using outbox::test::Outboxctl;
using outbox::test::RelayProcess;
using outbox::test::RelayTestConfig;
using outbox::test::TestBroker;
using outbox::test::TestDatabase;

TEST_CASE("outboxctl pause holds a topic in every relay while the rest flow and resume releases it",
          "[operator-pause][e2e]") {
  TestDatabase db;
  TestBroker broker(3, 8, {"outbox.order", "outbox.billing"});
  outbox::test::run_operator_pause_scenario(db, broker.bootstrap(), [](const std::string& name) {
    RelayTestConfig settings;
    settings.instance_id = "pause-" + name;
    return settings;
  });
}

TEST_CASE("an aggregate type's pause that ended while no relay ran is released at the next start",
          "[operator-pause][e2e]") {
  TestDatabase db;
  TestBroker broker(3, 8, {"outbox.order", "outbox.billing"});
  const Outboxctl ctl(db);
  REQUIRE(ctl.run({"pause", "--aggregate-type", "billing"}).status == 0);
  db.insert_events(100, "bill", "billing", 100);  // one event per aggregate: every one a head
  db.insert_events(100, "ord", "order", 100);
  {
    RelayProcess relay(db, broker.bootstrap(), RelayTestConfig{});
    REQUIRE(eventually([&] { return db.count("status = 'PUBLISHED'") == 100; }));
    REQUIRE(eventually([&] {
      return db.count(
                 "aggregate_type = 'billing' AND status = 'RETRY' AND next_attempt_at IS "
                 "NULL AND last_error LIKE 'paused by operator: aggregate_type billing: no "
                 "reason given (%'") == 100;
    }));
    CHECK(outbox::test::operator_paused_gauge(relay, "aggregate_type", "billing") == 1);
    outbox::test::stop_gracefully(relay);
  }
  // Ended by hand, with no relay running and no outboxctl resume to wake the held rows.
  db.exec("DELETE FROM outbox_pause");
  const auto listed = ctl.run({"--json", "paused"});
  CHECK(outbox::test::jq(".held_for_ended_pauses", listed.out) == "100");
  RelayProcess relay(db, broker.bootstrap(), RelayTestConfig{});
  REQUIRE(eventually([&] { return db.count("status = 'PUBLISHED'") == 200; }));
  CHECK(logged(relay, "pause watcher: woke 100 events held for ended pauses"));
  outbox::test::stop_gracefully(relay);
}

TEST_CASE("outboxctl pause refuses what it cannot hold and names a missing table",
          "[operator-pause]") {
  TestDatabase db;
  const Outboxctl ctl(db);
  const auto bad_topic = ctl.run({"pause", "billing events"});
  CHECK(bad_topic.status == 64);
  CHECK(bad_topic.err.find("'billing events' is not a Kafka topic name") != std::string::npos);
  CHECK(ctl.run({"pause"}).status == 64);
  CHECK(ctl.run({"pause", "a", "--aggregate-type", "b"}).status == 64);
  CHECK(ctl.run({"resume", "outbox.x", "--reason", "r"}).status == 64);
  const auto not_paused = ctl.run({"--json", "resume", "outbox.x"});
  CHECK(not_paused.status == 0);
  CHECK(outbox::test::jq(".was_paused", not_paused.out) == "false");

  db.exec("DROP TABLE outbox_pause");
  const auto missing = ctl.run({"paused"});
  CHECK(missing.status == 1);
  CHECK(missing.err.find("apply sql/014_outbox_pause.sql") != std::string::npos);
  TestBroker broker;
  db.insert_events(50, "flows");
  RelayProcess relay(db, broker.bootstrap(), RelayTestConfig{});
  REQUIRE(eventually([&] { return db.count("status = 'PUBLISHED'") == 50; }));
  CHECK(logged(relay, "outboxctl pause is not obeyed until sql/014_outbox_pause.sql is applied"));
  outbox::test::stop_gracefully(relay);
}
