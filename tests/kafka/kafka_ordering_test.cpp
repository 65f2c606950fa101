// Per-aggregate order through leader kills: many aggregates x many versions committed while
// two relays publish and the broker leading every partition is killed -9 twice (restarted in
// between). Read back with kcat: for every aggregate the first occurrence of each version
// comes in version order; everything is published.
#include <catch2/catch.hpp>

#include <chrono>
#include <iostream>

#include "background_writer.hpp"
#include "delivery_audit.hpp"
#include "http_scrape.hpp"
#include "kafka_faults.hpp"
#include "poll.hpp"
#include "test_kafka.hpp"

using namespace std::chrono_literals;
using namespace outbox::test;

TEST_CASE("each aggregate's versions reach Kafka in order through leader kills", "[kafka]") {
  constexpr int kAggregates = 100;
  TestKafkaCluster cluster;
  cluster->create_topic_led_by("outbox.order", 4, 1);
  TestDatabase db;
  const std::string ordered =
      "  ordering: per_aggregate\n"
      "  max_attempts: 1000\n"
      "  retry_backoff_initial: 100ms\n"
      "  retry_backoff_max: 1s\n";
  RelayProcess relay_a(db, cluster.bootstrap(), kafka_relay_config("ordered-a", ordered));
  RelayProcess relay_b(db, cluster.bootstrap(), kafka_relay_config("ordered-b", ordered));
  for (const RelayProcess* relay : {&relay_a, &relay_b}) {
    REQUIRE(eventually([&] { return logged(*relay, "relay running"); }));
  }
  const auto started = std::chrono::steady_clock::now();
  const auto published = [&] { return db.count("status = 'PUBLISHED'"); };
  // One more version of every aggregate every 200 ms, as writers committing them in turn.
  BackgroundWriter writer(
      [&](int version) { db.insert_versioned_events("ord", kAggregates, version, version); },
      200ms);
  REQUIRE(eventually([&] { return published() >= 1000; }));
  const LeaderOutage first = kill_and_restart_leader(*cluster, "outbox.order", published, 1000);
  const LeaderOutage second = kill_and_restart_leader(*cluster, "outbox.order", published, 1000);
  const int versions = writer.stop();
  const long long events = static_cast<long long>(versions) * kAggregates;
  REQUIRE(eventually([&] { return published() == events; }));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  // The backlogs the outages left were claimed in chains (several versions of an aggregate in
  // one claim, each sent after the one before was acknowledged): the path under test.
  double chained = 0;
  for (const RelayProcess* relay : {&relay_a, &relay_b}) {
    chained += metric_sample(http_get(relay->metrics_port(), "/metrics").body,
                             "outbox_relay_events_chained_total");
  }
  CHECK(chained > 0);
  stop_gracefully(relay_a);
  stop_gracefully(relay_b);
  for (const char* name : {"ordered-a", "ordered-b"})
    CHECK(db.count(std::string("published_by LIKE '") + name + "/%'") > 0);

  const auto records = read_topic(cluster.bootstrap(), "outbox.order");
  const VersionOrder order = version_order(records, versions);
  INFO("out of order: " << first_few(order.reordered));
  INFO("incomplete: " << first_few(order.incomplete));
  CHECK(order.aggregates == kAggregates);
  CHECK(order.split.empty());
  CHECK(order.incomplete.empty());
  CHECK(order.inversions == 0);
  const DeliveryAudit audit = audit_delivery(db, records);
  check_all_published_and_on_topic(audit);
  const DuplicateCauses duplicates = explain_duplicates(db, records, {&relay_a, &relay_b});
  INFO("unexplained: " << first_few(duplicates.unexplained));
  CHECK(duplicates.unexplained.empty());
  CHECK(duplicates.copies == order.duplicates);
  std::cout << "[figures] ordering through leader kills on the Kafka " << cluster->version()
            << " cluster: " << kAggregates << " aggregates x " << versions
            << " versions by 2 relays x 2 workers, node " << first.node << " then node "
            << second.node << " killed -9 (down " << first.seconds_down << " s, "
            << second.seconds_down << " s): " << events << " events in " << seconds << " s, "
            << records.size() << " records (" << chained << " claimed in chains), "
            << audit.topic.deliveries.size() << " distinct event ids, duplicates "
            << duplicates.summary() << ", inversions " << order.inversions << " in "
            << order.reordered.size() << " aggregates\n";
}
