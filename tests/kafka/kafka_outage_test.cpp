// Two of the three nodes killed for longer than message.timeout.ms: no partition can reach
// min.insync.replicas, every delivery times out, and nothing is marked; the nodes back,
// everything is published. Read back with kcat and the mariadb CLI.
#include <catch2/catch.hpp>

#include <chrono>
#include <iostream>
#include <thread>

#include "delivery_audit.hpp"
#include "harness/daemon_process.hpp"
#include "http_scrape.hpp"
#include "kafka_faults.hpp"
#include "poll.hpp"
#include "test_kafka.hpp"

using namespace std::chrono_literals;
using namespace outbox::test;

TEST_CASE("two of three nodes down past message.timeout.ms: nothing marked, then all published",
          "[kafka][sasl-matrix]") {
  TestKafkaCluster cluster;
  cluster->create_topic("outbox.order", 4);
  TestDatabase db;
  // A 5 s delivery timeout and a lease that outlasts it by 5 s (the least the relay accepts),
  // and only 3 attempts: an outage must count none of them however many deliveries it fails.
  RelayTestConfig settings = kafka_relay_config("outage",
                                                "  max_attempts: 3\n"
                                                "  retry_backoff_initial: 100ms\n"
                                                "  retry_backoff_max: 1s\n");
  settings.lease = "10s";
  settings.extra_kafka_properties += "    message.timeout.ms: 5000\n";
  RelayProcess relay(db, cluster.bootstrap(), settings);
  db.insert_events(500, "before", "order", 500);
  const auto published = [&] { return db.count("status = 'PUBLISHED'"); };
  REQUIRE(eventually([&] { return published() == 500; }));

  const std::string unconfirmed = "not confirmed by the broker";
  const int failures_before = outbox::harness::count_occurrences(relay.log(), unconfirmed);
  const auto outage_began = std::chrono::steady_clock::now();
  cluster->kill_node(1);
  cluster->kill_node(2);
  db.insert_events(1000, "during", "order", 1000);
  // The outage has reached the relay once it logs deliveries the cluster did not confirm.
  REQUIRE(eventually([&] {
    return outbox::harness::count_occurrences(relay.log(), unconfirmed) > failures_before;
  }));
  const long long published_at_outage = published();
  // Not one event committed after the kill is marked: with two nodes gone no partition can
  // have two replicas in sync, so the cluster acknowledges nothing.
  CHECK(published_at_outage == 500);
  // The outage's length, not a synchronisation: longer than message.timeout.ms, so what was
  // in flight when it began has timed out, and so has whatever the relay sent since (or,
  // should it stop claiming in an outage, it sent nothing).
  std::this_thread::sleep_until(outage_began + 12s);
  const long long published_late_in_outage = published();
  const double outage_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - outage_began).count();
  CHECK(published_late_in_outage == published_at_outage);
  // Nothing parked for good, no attempt counted: an outage is not the events' fault. The relay
  // paused its claims and says why.
  CHECK(db.count("status = 'FAILED'") == 0);
  CHECK(db.count("attempts > 0") == 0);
  CHECK(logged(relay, "kafka outage: every event of a batch failed the cluster's way"));
  const HttpAnswer ready = http_get(relay.metrics_port(), "/readyz");
  CHECK(ready.status == 503);
  CHECK(ready.body.find("kafka outage, claims paused: ") != std::string::npos);
  const int failures_logged =
      outbox::harness::count_occurrences(relay.log(), unconfirmed) - failures_before;

  cluster->start_nodes({1, 2});
  REQUIRE(eventually([&] { return published() == 1500; }));
  CHECK(logged(relay, "kafka outage over after"));
  const std::string attempts = db.scalar("SELECT MAX(attempts) FROM outbox_event");
  CHECK(attempts == "0");
  const KafkaRequestCounters requests = kafka_request_counters(relay.metrics_port());
  stop_gracefully(relay);

  const auto records = read_topic(cluster.bootstrap(), "outbox.order");
  const DeliveryAudit audit = audit_delivery(db, records);
  check_all_published_and_on_topic(audit);
  const DuplicateCauses duplicates = explain_duplicates(db, records, {&relay});
  INFO("unexplained: " << first_few(duplicates.unexplained));
  CHECK(duplicates.unexplained.empty());
  CHECK(duplicates.copies == audit.topic.duplicates());
  std::cout << "[figures] 2 of 3 nodes killed for " << outage_seconds
            << " s (message.timeout.ms 5000) on the Kafka " << cluster->version()
            << " cluster: " << published_at_outage - 500 << " of 1000 events marked before the "
            << "outage reached the relay, " << published_late_in_outage - published_at_outage
            << " after; " << failures_logged << " unconfirmed-batch lines, max attempts "
            << attempts << "; nodes back: 1500 events, " << audit.topic.records << " records, "
            << audit.topic.deliveries.size() << " distinct event ids, duplicates "
            << duplicates.summary() << "; librdkafka " << requests.figures() << "\n";
}
