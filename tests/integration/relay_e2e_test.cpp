// The relay end to end: outbox-relay processes against a real MariaDB and the test broker
// over TCP; results read back with kcat and the mariadb CLI, never through our own code.
#include <catch2/catch.hpp>

#include <signal.h>

#include <chrono>
#include <iostream>
#include <map>

#include "poll.hpp"
#include "relay_process.hpp"
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
  constexpr int kEvents = 20000;
  TestDatabase db;
  TestBroker broker(3, 8, {"outbox.order"});

  std::vector<std::unique_ptr<RelayProcess>> relays;
  for (const char* name : {"relay-a", "relay-b", "relay-c"}) {
    RelayTestConfig settings;
    settings.instance_id = name;
    settings.workers = 2;
    relays.push_back(std::make_unique<RelayProcess>(db, broker.bootstrap(), settings));
  }
  // All three polling before the backlog appears: a relay that is still starting (slow under
  // the sanitizers) when the others have drained 20k events would take no part.
  for (auto& relay : relays) {
    REQUIRE(eventually([&] { return logged(*relay, "relay running with 2 workers"); }));
  }
  const auto started = std::chrono::steady_clock::now();
  // One event per aggregate: with a few versions per aggregate, per-aggregate ordering lets
  // only one event of each aggregate be in flight, and two relays can hold every aggregate's
  // head while the third finds only events that must wait (tests/integration/
  // relay_ordering_test.cpp covers many versions per aggregate).
  db.insert_events(kEvents, "e2e", "order", kEvents);
  REQUIRE(eventually([&] { return db.count("status = 'PUBLISHED'") == kEvents; }));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  for (auto& relay : relays)
    stop_gracefully(*relay);

  const auto records = read_topic(broker.bootstrap(), "outbox.order");
  std::map<std::string, int> deliveries;
  for (const auto& record : records)
    ++deliveries[record.headers.at("event_id")];
  CHECK(records.size() == kEvents);
  CHECK(deliveries.size() == kEvents);
  int duplicates = 0;
  for (const auto& [id, count] : deliveries)
    duplicates += count - 1;
  CHECK(duplicates == 0);
  for (const auto& record : records) {
    const std::string& id = record.headers.at("event_id");
    const int seq = std::stoi(id.substr(4));
    REQUIRE(id == event_id("e2e", seq));
    CHECK(record.topic == "outbox.order");
    CHECK(record.key == "agg-" + std::to_string(seq % kEvents));
    CHECK(record.value == "{\"seq\": " + std::to_string(seq) + "}");
    CHECK(record.headers.at("event_type") == "ORDER_ACCEPTED");
    CHECK(record.headers.at("event_version") == "1");
    CHECK(record.headers.at("aggregate_type") == "order");
  }
  // Every relay took part; each row names the claim that published it.
  for (const char* name : {"relay-a", "relay-b", "relay-c"}) {
    CHECK(db.count(std::string("published_by LIKE '") + name + "/%'") > 0);
  }
  CHECK(db.count("status <> 'PUBLISHED' OR published_at IS NULL OR lease_owner IS NOT NULL") == 0);
  std::cout << "[figures] 20k e2e: " << kEvents << " events by 3 relays x 2 workers in " << seconds
            << " s = " << static_cast<int>(kEvents / seconds) << " events/s (insert of the backlog "
            << "to the last PUBLISHED), duplicates " << duplicates << "\n";
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
