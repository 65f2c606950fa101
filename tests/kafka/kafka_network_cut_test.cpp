// The wire between the relay and one broker loses every answer for a few seconds while the
// requests still arrive (a TCP proxy in front of the broker drops only what comes back): the
// broker appends what it receives, librdkafka retries the unanswered produce requests on a
// new connection, and the broker recognises them by producer id and sequence. 0 duplicates
// on the topic, and librdkafka's own counters show that the retry path ran.
#include <catch2/catch.hpp>

#include <chrono>
#include <iostream>
#include <thread>

#include "background_writer.hpp"
#include "delivery_audit.hpp"
#include "http_scrape.hpp"
#include "kafka_faults.hpp"
#include "poll.hpp"
#include "test_kafka.hpp"

using namespace std::chrono_literals;
using namespace outbox::test;

TEST_CASE("answers lost between the relay and the leader: retried, deduplicated by the broker",
          "[kafka]") {
  constexpr int kAggregates = 100;
  TestKafkaCluster cluster;
  cluster->create_topic_led_by("outbox.order", 4, 1);
  TestDatabase db;
  // The relay's defaults otherwise: a 30 s message timeout outlasts the lost answers, so
  // nothing reaches the relay's own failure policy; this is librdkafka's path alone.
  RelayProcess relay(db, cluster.bootstrap(), kafka_relay_config("cut", "  ordering: none\n"));
  REQUIRE(eventually([&] { return logged(relay, "relay running"); }));
  const int port = relay.metrics_port();
  const auto published = [&] { return db.count("status = 'PUBLISHED'"); };
  BackgroundWriter writer(
      [&](int step) { db.insert_versioned_events("cut", kAggregates, step, step); }, 100ms);
  REQUIRE(eventually([&] { return published() >= 1000; }));

  outbox::harness::TcpProxy& wire = cluster->proxy(1);
  wire.drop_replies();
  // What the broker must deduplicate is a request it ran whose answer never came back: a
  // lost answer is that proof. New requests need not arrive meanwhile: each worker waits for
  // its batch's reports, so when the fault starts just after librdkafka sent the last
  // requests, nothing more is sent until they are answered (waiting for a request to pass
  // then waited out librdkafka's 30 s request timeout instead of testing its retry).
  REQUIRE(eventually([&] { return wire.replies_lost() > 0; }));
  const long long published_when_dropped = published();
  // The fault's length, not a synchronisation: answers stay lost for three seconds while the
  // writer goes on, well inside librdkafka's request and message timeouts (30 s each).
  std::this_thread::sleep_for(3s);
  const long long published_while_dropped = published() - published_when_dropped;
  // heal() closes the connections: librdkafka fails the unanswered requests, puts their
  // messages back in their partitions' queues and sends them again on a new connection.
  wire.heal();
  const long long events = static_cast<long long>(writer.stop()) * kAggregates;
  REQUIRE(eventually_while_progressing([&] { return published() == events; }, published));
  // librdkafka's own count of messages put on the wire (its statistics, every second) against
  // the events the relay handed over once each: the difference was sent twice.
  KafkaRequestCounters requests;
  const bool resent = eventually([&] {
    requests = kafka_request_counters(port);
    return requests.events_claimed == static_cast<double>(events) &&
           requests.messages_transmitted > requests.events_claimed;
  });
  INFO("librdkafka " << requests.figures() << "; " << wire.replies_lost() << " answers lost");
  REQUIRE(resent);
  stop_gracefully(relay);

  CHECK(wire.replies_lost() > 0);  // requests the broker ran, answers the relay never got
  CHECK(requests.disconnects > 0);
  const auto records = read_topic(cluster.bootstrap(), "outbox.order");
  const DeliveryAudit audit = audit_delivery(db, records);
  check_all_published_and_on_topic(audit);
  CHECK(audit.rows == events);
  INFO("duplicated: " << audit.topic.duplicated_ids());
  CHECK(audit.topic.duplicates() == 0);
  // Nothing failed as far as the relay could tell: every retry stayed inside librdkafka, and
  // its progress line said so.
  CHECK_FALSE(logged(relay, "not confirmed by the broker"));
  CHECK(logged(relay, " kafka_disconnects="));
  std::cout << "[figures] answers dropped by the proxy of node 1 (leader of every partition) "
               "for 3 s on the Kafka "
            << cluster->version() << " cluster: " << wire.requests_passed_while_dropping()
            << " request chunks reached the broker unanswered, " << wire.replies_lost()
            << " answers lost, " << published_while_dropped << " events marked meanwhile; "
            << events << " events, " << audit.topic.records << " records, "
            << audit.topic.deliveries.size() << " distinct event ids, duplicates "
            << audit.topic.duplicates() << "; librdkafka " << requests.figures() << " ("
            << requests.messages_transmitted - requests.events_claimed << " sent again)\n";
}
