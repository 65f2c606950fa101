// kill -9 of the broker leading every partition being written, twice mid-run (restarted and
// back in the ISR in between), while an application keeps committing events: nothing lost,
// nothing marked that the cluster did not acknowledge, every duplicate explained by the
// relay's own log lines. Read back with kcat and the mariadb CLI.
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

TEST_CASE("kill -9 of the partitions' leader twice mid-run: nothing lost or marked unacknowledged",
          "[kafka][mysql-matrix][sasl-matrix]") {
  // 100 aggregates, one version of each every 200 ms (500 events/s).
  constexpr int kAggregates = 100;
  TestKafkaCluster cluster;
  // Node 1 leads all four partitions: the first kill hits every message in flight.
  cluster->create_topic_led_by("outbox.order", 4, 1);
  TestDatabase db;
  // No ordering: every claimed event is in flight at once, the most a kill can catch.
  RelayProcess relay(db, cluster.bootstrap(),
                     kafka_relay_config("leader-kill",
                                        "  ordering: none\n"
                                        "  max_attempts: 1000\n"
                                        "  retry_backoff_initial: 100ms\n"
                                        "  retry_backoff_max: 1s\n"));
  REQUIRE(eventually([&] { return logged(relay, "relay running"); }));
  const auto started = std::chrono::steady_clock::now();
  const auto published = [&] { return db.count("status = 'PUBLISHED'"); };
  BackgroundWriter writer(
      [&](int step) { db.insert_versioned_events("lk", kAggregates, step, step); }, 200ms);
  REQUIRE(eventually([&] { return published() >= 1000; }));
  // The second kill takes the leader that replaced the first (node 1 is back as a follower).
  const LeaderOutage first = kill_and_restart_leader(*cluster, "outbox.order", published, 1000);
  const LeaderOutage second = kill_and_restart_leader(*cluster, "outbox.order", published, 1000);
  const long long events = static_cast<long long>(writer.stop()) * kAggregates;
  REQUIRE(eventually_while_progressing([&] { return published() == events; }, published));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const KafkaRequestCounters requests = kafka_request_counters(relay.metrics_port());
  stop_gracefully(relay);
  // Each time another node took over while the killed one was down.
  CHECK((first.successor > 0 && first.successor != first.node));
  CHECK((second.successor > 0 && second.successor != second.node));

  const auto records = read_topic(cluster.bootstrap(), "outbox.order");
  const DeliveryAudit audit = audit_delivery(db, records);
  check_all_published_and_on_topic(audit);
  CHECK(audit.rows == events);
  const DuplicateCauses duplicates = explain_duplicates(db, records, {&relay});
  INFO("unexplained: " << first_few(duplicates.unexplained));
  CHECK(duplicates.unexplained.empty());
  CHECK(duplicates.copies == audit.topic.duplicates());
  std::cout << "[figures] leader kill -9 x2 on the Kafka " << cluster->version()
            << " cluster: node " << first.node << " (down " << first.seconds_down
            << " s, leader now node " << first.successor << "), then node " << second.node
            << " (down " << second.seconds_down << " s); " << events << " events in " << seconds
            << " s, " << audit.topic.records << " records, " << audit.topic.deliveries.size()
            << " distinct event ids, duplicates " << duplicates.summary() << "; librdkafka "
            << requests.figures() << "\n";
}
