// The relay end to end: outbox-relay processes against a real MariaDB and the test broker
// over TCP; results read back with kcat and the mariadb CLI, never through our own code.
#include <catch2/catch.hpp>

#include <signal.h>

#include <chrono>
#include <iostream>
#include <map>

#include "poll.hpp"
#include "relay_process.hpp"
#include "relay_scenarios.hpp"
#include "test_database.hpp"
#include "test_kafka.hpp"

using namespace std::chrono_literals;
using outbox::test::deliveries_by_event;
using outbox::test::event_id;
using outbox::test::eventually;
using outbox::test::read_topic;
using outbox::test::RelayProcess;
using outbox::test::RelayTestConfig;
using outbox::test::stop_gracefully;
using outbox::test::TestBroker;
using outbox::test::TestDatabase;

TEST_CASE("20k events through 3 relays x 2 workers arrive exactly once, complete and in place",
          "[e2e]") {
  TestBroker broker(3, 8, {"outbox.order"});
  outbox::test::run_three_relays_exactly_once(broker.bootstrap(), "mock cluster");
}

TEST_CASE("rows of a dead owner are reclaimed when its lease has ended", "[e2e]") {
  TestDatabase db;
  db.insert_events(5, "dead");
  db.insert_events(3, "live");
  // A relay that died mid-publish: its claim is still on the rows, its lease ended.
  db.exec(
      "UPDATE outbox_event SET status = 'PUBLISHING', lease_owner = 'dead-relay/w0/c42', "
      "lease_until = CURRENT_TIMESTAMP(6) - INTERVAL 5 SECOND, next_attempt_at = lease_until "
      "WHERE event_id LIKE 'dead-%'");
  TestBroker broker;
  RelayTestConfig settings;
  settings.instance_id = "rescuer";
  RelayProcess relay(db, broker.bootstrap(), settings);
  REQUIRE(eventually([&] { return db.count("status = 'PUBLISHED'") == 8; }));
  stop_gracefully(relay);
  CHECK(db.count("event_id LIKE 'dead-%' AND published_by LIKE 'rescuer/%'") == 5);
  CHECK(relay.log().find("took over 5 expired leases: " + event_id("dead", 1) +
                         " (was dead-relay/w0/c42)") != std::string::npos);
  const auto deliveries = deliveries_by_event(broker.bootstrap(), "outbox.order");
  CHECK(deliveries.size() == 8);
}

TEST_CASE("a live lease is not taken over", "[e2e]") {
  TestDatabase db;
  db.insert_events(4, "held");
  db.exec(
      "UPDATE outbox_event SET status = 'PUBLISHING', lease_owner = 'other-relay/w0/c1', "
      "lease_until = CURRENT_TIMESTAMP(6) + INTERVAL 1 HOUR, next_attempt_at = lease_until "
      "WHERE event_id <= '" +
      event_id("held", 2) + "'");
  TestBroker broker;
  RelayProcess relay(db, broker.bootstrap(), RelayTestConfig{});
  REQUIRE(eventually([&] { return db.count("status = 'PUBLISHED'") == 2; }));
  // Several empty polls later the held rows are still the other relay's.
  REQUIRE(
      eventually([&] { return relay.log().find("progress: published=2 ") != std::string::npos; }));
  stop_gracefully(relay);
  CHECK(db.count("status = 'PUBLISHING' AND lease_owner = 'other-relay/w0/c1'") == 2);
}

TEST_CASE("SIGTERM mid-run drains: exit 0, confirmed rows marked, none left leased", "[e2e]") {
  TestDatabase db;
  db.insert_events(30000, "drain");
  TestBroker broker;
  RelayTestConfig settings;
  settings.instance_id = "drainer";
  settings.batch_size = 200;
  settings.drain_timeout = "10s";
  RelayProcess relay(db, broker.bootstrap(), settings);
  // Slow acknowledgements keep batches in flight when the signal lands.
  REQUIRE(eventually([&] { return relay.log().find("relay running") != std::string::npos; }));
  broker.command("rtt all 100");
  REQUIRE(eventually([&] { return db.count("status = 'PUBLISHED'") >= 1000; }));
  const long long published_before = db.count("status = 'PUBLISHED'");
  relay.process().signal(SIGTERM);
  const auto status = relay.process().wait_exit(40s);  // drain bound + read timeout margin
  INFO(relay.log());
  REQUIRE(status.has_value());
  CHECK(*status == 0);
  CHECK(db.count("status = 'PUBLISHING' AND lease_owner LIKE 'drainer/%'") == 0);
  CHECK(db.count("status = 'PENDING'") > 0);  // it really stopped mid-run
  CHECK(relay.log().find("SIGTERM") != std::string::npos);
  CHECK(relay.log().find("drained:") != std::string::npos);
  // Everything marked is on the broker.
  const auto deliveries = deliveries_by_event(broker.bootstrap(), "outbox.order");
  const auto published = db.query("SELECT event_id FROM outbox_event WHERE status = 'PUBLISHED'");
  CHECK(static_cast<long long>(published.size()) >= published_before);
  for (const auto& row : published)
    CHECK(deliveries.count(row[0]) == 1);
}
