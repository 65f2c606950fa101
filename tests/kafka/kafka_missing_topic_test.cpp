// Events routed to a topic the cluster does not have (automatic creation is off): the real
// broker's answer goes through the failure policy, which retries them without attempts for
// relay.unknown_topic_grace (the topic may be about to appear) and then parks them FAILED with
// that error and the reason, while the other events flow to their topic. Read back with kcat
// and the mariadb CLI.
#include <catch2/catch.hpp>

#include <chrono>
#include <iostream>

#include "delivery_audit.hpp"
#include "kafka_faults.hpp"
#include "poll.hpp"
#include "test_kafka.hpp"

using namespace std::chrono_literals;
using namespace outbox::test;

TEST_CASE("events for a missing topic park FAILED with the broker's error, the others flow",
          "[kafka]") {
  TestKafkaCluster cluster;
  cluster->create_topic("outbox.order", 4);
  TestDatabase db;
  db.insert_versioned_events("flow", 100, 1, 3);
  db.insert_events(5, "lost", "audit", 5);  // one per aggregate: each heads its own
  RelayTestConfig settings = kafka_relay_config("missing", "");
  settings.extra_kafka_settings = "  topics:\n    audit: outbox.audit.missing\n";
  // librdkafka holds a message for an unknown topic until the topic shows up or
  // message.timeout.ms passes: 10 s instead of the default 30 s keeps the test short (the
  // lease outlasts it by 5 s, the least the relay accepts).
  settings.extra_kafka_properties += "    message.timeout.ms: 10000\n";
  settings.lease = "15s";
  settings.extra_relay_settings += "  unknown_topic_grace: 15s\n";
  const auto started = std::chrono::steady_clock::now();
  RelayProcess relay(db, cluster.bootstrap(), settings);
  // The others flow; those claimed in the same batch as a missing-topic event are marked when
  // the batch settles, once that event's report came (on its first attempt librdkafka waits
  // for the topic up to message.timeout.ms).
  REQUIRE(eventually(
      [&] { return db.count("aggregate_type = 'order' AND status = 'PUBLISHED'") == 300; }));
  const double orders_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  REQUIRE(
      eventually([&] { return db.count("aggregate_type = 'audit' AND status = 'FAILED'") == 5; }));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  // The broker's UNKNOWN_TOPIC_OR_PART, or librdkafka's name for the same metadata answer, and
  // why it was given up on.
  CHECK(
      db.count("aggregate_type = 'audit' AND (last_error LIKE 'UNKNOWN_TOPIC_OR_PART:%' OR "
               "last_error LIKE '\\_UNKNOWN_TOPIC:%') AND last_error LIKE '%(topic "
               "outbox.audit.missing unknown for %, longer than relay.unknown_topic_grace 15s)'") ==
      5);
  // Retried within the grace without counting: the one attempt is the one that gave up.
  CHECK(db.count("aggregate_type = 'audit' AND attempts = 1") == 5);
  const std::string errors = db.scalar(
      "SELECT GROUP_CONCAT(DISTINCT SUBSTRING_INDEX(last_error, ':', 1)) FROM outbox_event "
      "WHERE aggregate_type = 'audit'");
  const std::string attempts =
      db.scalar("SELECT MAX(attempts) FROM outbox_event WHERE aggregate_type = 'audit'");
  stop_gracefully(relay);
  for (int i = 1; i <= 5; ++i) {
    INFO(event_id("lost", i));
    CHECK(logged(relay, "event " + event_id("lost", i) + " FAILED"));
  }
  CHECK(logged(relay, "(topic outbox.audit.missing)"));
  CHECK(logged(relay, "(topic outbox.audit.missing not known yet); retrying in"));

  const auto records = read_topic(cluster.bootstrap(), "outbox.order");
  const DeliveryAudit audit = audit_delivery(db, records, "aggregate_type = 'order'");
  check_all_published_and_on_topic(audit);
  CHECK(audit.topic.duplicates() == 0);
  // Trying to produce to it created nothing.
  CHECK_FALSE(topic_exists(cluster.bootstrap(), "outbox.audit.missing"));
  std::cout << "[figures] missing topic on the Kafka " << cluster->version()
            << " cluster: 5 events FAILED with " << errors << " after " << attempts
            << " attempt(s), within " << seconds << " s of the relay's start; 300 other events "
            << "published within " << orders_seconds << " s: " << audit.topic.records
            << " records, " << audit.topic.deliveries.size() << " distinct event ids, duplicates "
            << audit.topic.duplicates() << "\n";
}
