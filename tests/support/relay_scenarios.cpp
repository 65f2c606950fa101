#include "relay_scenarios.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <iostream>
#include <memory>
#include <vector>

#include "poll.hpp"
#include "relay_process.hpp"
#include "test_database.hpp"
#include "test_kafka.hpp"
#include "topic_checks.hpp"

namespace outbox::test {

void run_three_relays_exactly_once(const std::string& bootstrap, const std::string& broker_name) {
  constexpr int kEvents = 20000;
  TestDatabase db;
  std::vector<std::unique_ptr<RelayProcess>> relays;
  for (const char* name : {"relay-a", "relay-b", "relay-c"}) {
    RelayTestConfig settings;
    settings.instance_id = name;
    settings.workers = 2;
    relays.push_back(std::make_unique<RelayProcess>(db, bootstrap, settings));
  }
  // All three polling before the backlog appears: a relay that is still starting (slow under
  // the sanitizers) when the others have drained 20k events would take no part.
  for (auto& relay : relays) {
    REQUIRE(eventually([&] { return logged(*relay, "relay running with 2 workers"); }));
  }
  const auto started = std::chrono::steady_clock::now();
  // One event per aggregate: with a few versions per aggregate, per-aggregate ordering lets
  // only one event of each aggregate be in flight, and two relays can hold every aggregate's
  // head while the third finds only events that must wait (relay_ordering_test.cpp covers
  // many versions per aggregate).
  db.insert_events(kEvents, "e2e", "order", kEvents);
  REQUIRE(eventually([&] { return db.count("status = 'PUBLISHED'") == kEvents; }));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  for (auto& relay : relays)
    stop_gracefully(*relay);

  const auto records = read_topic(bootstrap, "outbox.order");
  const TopicTally topic = tally(records);
  INFO("duplicated: " << topic.duplicated_ids());
  CHECK(topic.records == kEvents);
  CHECK(topic.deliveries.size() == kEvents);
  CHECK(topic.duplicates() == 0);
  check_insert_events_records(records, "e2e", kEvents);
  // Every relay took part; each row names the claim that published it.
  for (const char* name : {"relay-a", "relay-b", "relay-c"}) {
    CHECK(db.count(std::string("published_by LIKE '") + name + "/%'") > 0);
  }
  CHECK(db.count("status <> 'PUBLISHED' OR published_at IS NULL OR lease_owner IS NOT NULL") == 0);
  std::cout << "[figures] 20k e2e on the " << broker_name << ": " << kEvents
            << " events by 3 relays x 2 workers in " << seconds
            << " s = " << static_cast<int>(kEvents / seconds)
            << " events/s (insert of the backlog to the last PUBLISHED), " << topic.records
            << " records, " << topic.deliveries.size() << " distinct event ids, duplicates "
            << topic.duplicates() << "\n";
}

}  // namespace outbox::test
