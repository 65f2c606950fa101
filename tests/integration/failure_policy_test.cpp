// The failure policy end to end: a poison event parks as FAILED without stopping the others
// (and, in per-aggregate mode, holds back only its own aggregate); retriable failures back off
// and park after max_attempts; outboxctl requeue and skip put them back in motion.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>

#include "child_process.hpp"
#include "harness/sequence_rows.hpp"
#include "http_scrape.hpp"
#include "poll.hpp"
#include "relay_process.hpp"
#include "test_database.hpp"
#include "test_kafka.hpp"

using namespace std::chrono_literals;
using outbox::test::eventually;
using outbox::test::logged;
using outbox::test::RelayProcess;
using outbox::test::RelayTestConfig;
using outbox::test::run_command;
using outbox::test::TestBroker;
using outbox::test::TestDatabase;

namespace {

outbox::test::CommandResult outboxctl(const RelayProcess& relay, std::vector<std::string> args) {
  return outbox::test::run_outboxctl(relay.config_file(), std::move(args));
}

// event_id of aggregate's version in the test's insert.
std::string id_of(const TestDatabase& db, const std::string& aggregate, int version) {
  return db.scalar("SELECT event_id FROM outbox_event WHERE aggregate_id = '" + aggregate +
                   "' AND event_version = " + std::to_string(version));
}

}  // namespace

TEST_CASE("a poison event fails at once, the others flow, its aggregate waits until skipped",
          "[failure-policy][e2e]") {
  TestDatabase db;
  // 11 aggregates x 3 versions; version 1 of agg-poison is above librdkafka's 1 MB
  // message.max.bytes.
  db.exec(
      "INSERT INTO outbox_event (event_id, aggregate_type, aggregate_id, event_type, "
      "event_version, payload, status, created_at) SELECT CONCAT('poison-', LPAD(seq, 29, '0')), "
      "'order', IF(seq % 11 = 0, 'agg-poison', CONCAT('agg-', seq % 11)), 'X', (seq - 1) DIV 11 "
      "+ 1, IF(seq = 11, JSON_OBJECT('blob', REPEAT('x', 1100000)), JSON_OBJECT('seq', seq)), "
      "'PENDING', CURRENT_TIMESTAMP(6) - INTERVAL 1 HOUR + INTERVAL seq MICROSECOND FROM " +
      outbox::harness::sequence_rows(1, 33));
  const std::string poison = id_of(db, "agg-poison", 1);
  TestBroker broker(3, 8, {"outbox.order"});
  RelayProcess relay(db, broker.bootstrap(), RelayTestConfig{});
  REQUIRE(eventually([&] { return db.count("status = 'PUBLISHED'") == 30; }));
  REQUIRE(eventually([&] { return db.count("status = 'FAILED'") == 1; }));
  CHECK(db.count("event_id = '" + poison +
                 "' AND status = 'FAILED' AND attempts = 1 AND last_error LIKE "
                 "'MSG_SIZE_TOO_LARGE:%'") == 1);
  CHECK(logged(relay, "event " + poison + " FAILED: not delivered"));
  // Its aggregate waits (BLOCKED), every other aggregate is complete.
  CHECK(db.count("aggregate_id = 'agg-poison' AND event_version > 1 AND status = 'BLOCKED'") == 2);
  CHECK(db.count("aggregate_id <> 'agg-poison' AND status <> 'PUBLISHED'") == 0);

  const auto skipped = outboxctl(relay, {"skip", poison});
  INFO(skipped.err);
  CHECK(skipped.status == 0);
  CHECK(skipped.out == "event " + poison + ": skipped, now SKIPPED\n");
  REQUIRE(eventually([&] { return db.count("status = 'PUBLISHED'") == 32; }));
  outbox::test::stop_gracefully(relay);

  std::vector<std::string> poison_versions;
  for (const auto& record : outbox::test::read_topic(broker.bootstrap(), "outbox.order")) {
    if (record.key == "agg-poison") poison_versions.push_back(record.headers.at("event_version"));
  }
  CHECK(poison_versions == std::vector<std::string>{"2", "3"});
  // Skipping it again is refused and says why.
  const auto again = outboxctl(relay, {"skip", poison});
  CHECK(again.status == 1);
  CHECK(again.err == "event " + poison + ": not skipped: it is SKIPPED, not FAILED\n");
}

TEST_CASE("an outage counts no attempt and parks nothing, however long it lasts, and ends alone",
          "[failure-policy][e2e]") {
  TestDatabase db;
  db.insert_events(200, "outage", "order", 20);  // 20 aggregates x 10 versions
  TestBroker broker(1, 4, {"outbox.order"});
  // What the issue measured: 3 s delivery timeout, 10 s lease, 3 attempts. Before, every
  // aggregate's head went FAILED within a few timeouts and the rest waited BLOCKED behind it.
  RelayTestConfig settings;
  settings.lease = "10s";
  // One worker: its first claim takes each aggregate's head with the versions behind it (a
  // pipelined batch, checked below). With two, the other worker's scan could hold those
  // versions locked, each head went alone on the shared producer, and the outage was declared
  // with no pipelined batch ever sent (a ThreadSanitizer run of a fresh clone).
  settings.workers = 1;
  settings.extra_kafka_properties =
      "    message.timeout.ms: 3000\n"
      "    retry.backoff.ms: 100\n";
  settings.extra_relay_settings =
      "  max_attempts: 3\n"
      "  retry_backoff_initial: 200ms\n"
      "  retry_backoff_max: 400ms\n";
  // Every produce request fails with NOT_ENOUGH_REPLICAS until the test clears the errors.
  std::string errors = "errors Produce";
  for (int i = 0; i < 3000; ++i)
    errors += " NOT_ENOUGH_REPLICAS";
  broker.command(errors);
  RelayProcess relay(db, broker.bootstrap(), settings);
  REQUIRE(eventually([&] { return logged(relay, "kafka outage: every event of a batch failed"); }));
  // Many more failed deliveries than max_attempts allows: probes keep failing.
  if (!eventually([&] {
        return outbox::harness::count_occurrences(relay.log(), "the probe failed too") >= 4;
      }))
    FAIL("fewer than 4 failed probes; the relay's log:\n" << relay.log());
  const outbox::test::HttpAnswer ready = outbox::test::http_get(relay.metrics_port(), "/readyz");
  INFO(ready.body);
  CHECK(ready.status == 503);
  // librdkafka retries NOT_ENOUGH_REPLICAS itself until the delivery timeout: the report says so.
  CHECK(ready.body.find("kafka outage, claims paused: _MSG_TIMED_OUT") != std::string::npos);
  const std::string metrics = outbox::test::http_get(relay.metrics_port(), "/metrics").body;
  CHECK(outbox::test::metric_sample(metrics, "outbox_relay_kafka_outage") == 1);
  CHECK(db.count("status = 'FAILED'") == 0);
  CHECK(db.count("attempts > 0") == 0);
  CHECK(db.count("status = 'PUBLISHED'") == 0);
  // Several versions per aggregate: batches went on the gapless producers, which have no
  // message timeout of their own: each is purged at the shared producer's timeout, or at once
  // if the gapless guarantee stopped its producer. Polled: on a loaded machine (a TSan run of
  // the suite) the outage was once declared from other batches before a pipelined one's purge.
  if (!eventually([&] {
        return logged(relay, "not reported within the delivery timeout: purging its producer") ||
               logged(relay, "its producer stopped");
      }))
    FAIL("no pipelined batch purged; the relay's log:\n" << relay.log());

  broker.command("clear Produce");
  REQUIRE(eventually([&] { return db.count("status = 'PUBLISHED'") == 200; }));
  CHECK(logged(relay, "kafka outage over after"));
  CHECK(db.count("attempts > 0") == 0);
  // The only trace an outage leaves on a row: it waited for its paused partition.
  CHECK(db.count("last_error IS NOT NULL AND last_error NOT LIKE 'partition paused: %'") == 0);
  const std::string after = outbox::test::http_get(relay.metrics_port(), "/metrics").body;
  CHECK(outbox::test::metric_sample(after, "outbox_relay_kafka_outage") == 0);
  CHECK(outbox::test::metric_sample(after, "outbox_relay_kafka_outages_total") == 1);
  outbox::test::stop_gracefully(relay);
  // Each aggregate's versions in order, each event on the topic.
  const auto deliveries = outbox::test::deliveries_by_event(broker.bootstrap(), "outbox.order");
  CHECK(deliveries.size() == 200);
}

TEST_CASE("an event's own failure parks it FAILED at once, and fixed and requeued it publishes",
          "[failure-policy][e2e]") {
  TestDatabase db;
  db.exec(
      "INSERT INTO outbox_event (event_id, aggregate_type, aggregate_id, event_type, "
      "event_version, payload, status, created_at) VALUES ('" +
      outbox::test::event_id("fixme", 1) +
      "', 'order', 'agg-1', 'X', 1, JSON_OBJECT('blob', REPEAT('x', 1100000)), 'PENDING', "
      "CURRENT_TIMESTAMP(6))");
  const std::string id = outbox::test::event_id("fixme", 1);
  TestBroker broker(1, 1, {"outbox.order"});
  RelayProcess relay(db, broker.bootstrap(), RelayTestConfig{});
  REQUIRE(eventually([&] { return db.count("status = 'FAILED'") == 1; }));
  CHECK(db.count("event_id = '" + id +
                 "' AND attempts = 1 AND next_attempt_at IS NULL AND last_error LIKE "
                 "'MSG_SIZE_TOO_LARGE:%'") == 1);
  CHECK(logged(relay, "event " + id + " FAILED: not delivered"));

  // The operator fixes the row, then requeues it.
  db.exec("UPDATE outbox_event SET payload = JSON_OBJECT('blob', 'small') WHERE event_id = '" + id +
          "'");
  const auto requeued = outboxctl(relay, {"--json", "requeue", id});
  INFO(requeued.err);
  CHECK(requeued.status == 0);
  CHECK(requeued.out == "{\"event_id\":\"" + id + "\",\"requeued\":true,\"status\":\"PENDING\"}\n");
  REQUIRE(eventually([&] { return db.count("status = 'PUBLISHED'") == 1; }));
  outbox::test::stop_gracefully(relay);
  CHECK(outbox::test::deliveries_by_event(broker.bootstrap(), "outbox.order").count(id) == 1);
  const auto not_failed = outboxctl(relay, {"requeue", id});
  CHECK(not_failed.status == 1);
  CHECK(not_failed.err == "event " + id + ": not requeued: it is PUBLISHED, not FAILED\n");
  const auto all = outboxctl(relay, {"requeue", "--all-failed"});
  CHECK(all.status == 0);
  CHECK(all.out == "0 FAILED events requeued (PENDING, attempts reset)\n");
}

TEST_CASE("rows behind a FAILED event wait without rechecks, and move once it is requeued",
          "[failure-policy][e2e]") {
  TestDatabase db;
  // One aggregate: a poison head (above librdkafka's 1 MB message.max.bytes), 300 versions
  // behind it.
  db.exec(
      "INSERT INTO outbox_event (event_id, aggregate_type, aggregate_id, event_type, "
      "event_version, payload, status, created_at) SELECT CONCAT('behind-', LPAD(seq, 29, '0')), "
      "'order', 'agg-1', 'X', seq, IF(seq = 1, JSON_OBJECT('blob', REPEAT('x', 1100000)), "
      "JSON_OBJECT('seq', seq)), 'PENDING', CURRENT_TIMESTAMP(6) - INTERVAL 1 SECOND + INTERVAL "
      "seq MICROSECOND FROM " +
      outbox::harness::sequence_rows(1, 301));  // young rows: their first recheck comes in 1 s
  const std::string head = outbox::test::event_id("behind", 1);
  TestBroker broker(1, 1, {"outbox.order"});
  RelayTestConfig settings;
  settings.extra_relay_settings = "  reclaim_interval: 50ms\n";  // rechecks as often as can be
  RelayProcess relay(db, broker.bootstrap(), settings);
  REQUIRE(eventually([&] { return db.count("status = 'FAILED'") == 1; }));
  // After their recheck found them behind a FAILED event, the 300 rows have no recheck left:
  // no due scan reads them again, nothing rewrites them (before: rechecked and rewritten over
  // and over for as long as the head stayed FAILED).
  REQUIRE(eventually(
      [&] { return db.count("status = 'BLOCKED' AND next_attempt_at IS NULL") == 300; }));
  const auto progress_lines = [&] {
    return outbox::harness::count_occurrences(relay.log(), "progress: ");
  };
  const int seen = progress_lines();
  REQUIRE(eventually([&] { return progress_lines() >= seen + 3; }));  // many due scans later
  CHECK(db.count("status = 'BLOCKED' AND next_attempt_at IS NULL") == 300);

  // The operator fixes and requeues the head: the whole aggregate follows, in order.
  db.exec("UPDATE outbox_event SET payload = JSON_OBJECT('seq', 1) WHERE event_id = '" + head +
          "'");
  const auto requeued = outboxctl(relay, {"requeue", head});
  CHECK(requeued.status == 0);
  REQUIRE(eventually([&] { return db.count("status = 'PUBLISHED'") == 301; }));
  outbox::test::stop_gracefully(relay);
  std::vector<int> versions;
  for (const auto& record : outbox::test::read_topic(broker.bootstrap(), "outbox.order"))
    versions.push_back(std::stoi(record.headers.at("event_version")));
  CHECK(versions.size() == 301);
  CHECK(std::is_sorted(versions.begin(), versions.end()));
}

TEST_CASE("a row whose lease keeps expiring unsettled is parked FAILED, not claimed forever",
          "[failure-policy][e2e]") {
  TestDatabase db;
  db.insert_events(2, "wedged");
  // Both rows were claimed by relays that died (or could not settle them); the first already
  // four times, the second once.
  db.exec(
      "UPDATE outbox_event SET status = 'PUBLISHING', lease_owner = 'gone/w0/c9', "
      "lease_until = CURRENT_TIMESTAMP(6) - INTERVAL 5 SECOND, next_attempt_at = lease_until, "
      "last_error = 'MSG_TIMED_OUT: x', lease_expiries = IF(event_id LIKE '%1', 4, 0)");
  const std::string wedged = outbox::test::event_id("wedged", 1);
  const std::string other = outbox::test::event_id("wedged", 2);
  TestBroker broker;
  RelayTestConfig settings;
  settings.extra_relay_settings = "  max_lease_expiries: 5\n";
  RelayProcess relay(db, broker.bootstrap(), settings);
  REQUIRE(eventually([&] { return db.count("status IN ('FAILED', 'PUBLISHED')") == 2; }));
  outbox::test::stop_gracefully(relay);
  CHECK(db.count("event_id = '" + wedged +
                 "' AND status = 'FAILED' AND lease_expiries = 5 AND lease_owner IS NULL AND "
                 "last_error = 'its lease expired 5 times without a relay settling it "
                 "(relay.max_lease_expiries); last error: MSG_TIMED_OUT: x'") == 1);
  CHECK(db.count("event_id = '" + other + "' AND status = 'PUBLISHED' AND lease_expiries = 1") ==
        1);
  CHECK(logged(relay, "parked 1 events as FAILED whose lease kept expiring unsettled"));
  const auto deliveries = outbox::test::deliveries_by_event(broker.bootstrap(), "outbox.order");
  CHECK(deliveries.count(wedged) == 0);
  CHECK(deliveries.count(other) == 1);

  // Requeued, it gets a whole set of lease expiries again: one more expiry (a relay dies with
  // it once more) does not park it at once.
  const auto requeued = outboxctl(relay, {"requeue", wedged});
  INFO(requeued.err);
  REQUIRE(requeued.status == 0);
  CHECK(db.count("event_id = '" + wedged + "' AND status = 'PENDING' AND lease_expiries = 0") == 1);
  db.exec(
      "UPDATE outbox_event SET status = 'PUBLISHING', lease_owner = 'gone/w0/c10', "
      "lease_until = CURRENT_TIMESTAMP(6) - INTERVAL 5 SECOND, next_attempt_at = lease_until "
      "WHERE event_id = '" +
      wedged + "'");
  RelayProcess again(db, broker.bootstrap(), settings);
  REQUIRE(eventually([&] {
    return db.count("event_id = '" + wedged + "' AND status IN ('FAILED', 'PUBLISHED')") == 1;
  }));
  outbox::test::stop_gracefully(again);
  CHECK(db.count("event_id = '" + wedged + "' AND status = 'PUBLISHED' AND lease_expiries = 1") ==
        1);
  CHECK(outbox::test::deliveries_by_event(broker.bootstrap(), "outbox.order").count(wedged) == 1);
}
