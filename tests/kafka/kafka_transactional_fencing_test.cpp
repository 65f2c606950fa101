// relay.ordering: transactional, a zombie and its successor: relay A (instance id "zombie") is
// frozen with one batch's transaction open on the cluster, relay B is started with the same
// instance id, so its transactional producer "outbox-relay-zombie-0" fences A's and aborts A's
// open transaction. A, resumed, must mark nothing, and read_committed consumers must see every
// event exactly once (B's copy) while A's aborted copy is stored beside it.
//
// How A is held inside its transaction deterministically, without timing a signal against
// the relay's threads: A's batch cannot end before every delivery report is in (the commit,
// or the abort, comes only after them, in TransactionalDeliveries' thread), and a report
// comes only with the partition leader's answer to the Produce request. So the wire between
// the clients and the leader of outbox.order drops every answer (TcpProxy::drop_replies: the
// requests still reach the broker, which stores and replicates the records). The leader is
// chosen to be another node than A's transaction coordinator (whose AddPartitionsToTxn answer
// the producer needs before it sends a record), found from the transactional.id the way Kafka
// maps it to a partition of __transaction_state. Then:
//   - kcat read_uncommitted (on the brokers' internal listener, past the proxies) sees A's
//     records stored, read_committed sees none: A's transaction is open, and no answer, hence
//     no report, has reached A, so it cannot have committed. A is then SIGSTOPped: frozen
//     inside its transaction, its rows PUBLISHING under its lease (60 s, far ahead).
//   - the wire is healed (A's connection to the leader is closed; A sleeps through it) and B
//     starts. B's start initialises outbox-relay-zombie-0: the coordinator aborts A's open
//     transaction and bumps the epoch. Then B publishes one event of its own aggregate on the
//     same single partition (a batch of one event per aggregate, so on B's idempotent
//     producer, not in a transaction). That B's event reaches read_committed consumers proves
//     A's transaction ended, as it lies before B's on the partition: A is frozen, and
//     transaction.timeout.ms is set to 5 minutes, so no coordinator timeout ended it.
//   - A gets SIGTERM and SIGCONT together: it resumes draining (no new claim), its producer
//     learns it is fenced, its batch ends unconfirmed, and while its lease still holds it marks
//     nothing. B then publishes the rows A gave back (or took over at the lease's end).
// No step waits on a clock: each polls for the state the next one needs.
#include <catch2/catch.hpp>

#include <signal.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "delivery_audit.hpp"
#include "kafka_faults.hpp"
#include "poll.hpp"
#include "test_kafka.hpp"
#include "topic_checks.hpp"

using namespace std::chrono_literals;
using namespace outbox::test;

namespace {

constexpr int kFencingAggregates = 20;
constexpr int kFencingVersions = 2;
constexpr int kFencingEvents = kFencingAggregates * kFencingVersions;
// transaction.state.log.num.partitions of scripts/kafka-cluster.sh.
constexpr int kTransactionStatePartitions = 4;

// The partition of __transaction_state whose leader coordinates `transactional_id`: Kafka's
// Utils.abs(transactionalId.hashCode) % partitions, with Java's String.hashCode (ASCII ids).
int transaction_state_partition(const std::string& transactional_id) {
  uint32_t hash = 0;
  for (const char c : transactional_id)
    hash = 31 * hash + static_cast<unsigned char>(c);
  const auto signed_hash = static_cast<int32_t>(hash);
  const int32_t magnitude = signed_hash == INT32_MIN ? 0 : std::abs(signed_hash);
  return magnitude % kTransactionStatePartitions;
}

// One PENDING event of its own aggregate: topic outbox.<aggregate_type>. Claimed alone, it goes
// on the relay's idempotent producer (a transaction only holds several versions of one
// aggregate).
void insert_single_event(const TestDatabase& db, const std::string& id,
                         const std::string& aggregate_type) {
  db.exec(
      "INSERT INTO outbox_event (event_id, aggregate_type, aggregate_id, event_type, "
      "event_version, payload, status, created_at) VALUES ('" +
      id + "', '" + aggregate_type + "', 'single-" + id +
      "', 'ORDER_CHANGED', 1, JSON_OBJECT('single', 1), 'PENDING', CURRENT_TIMESTAMP(6))");
}

// Versions 1 and 2 of one aggregate of its own, ids event_id(prefix, 1) and (prefix, 2), in
// one INSERT: claimed together, they are one transaction.
void insert_two_versions(const TestDatabase& db, const std::string& prefix,
                         const std::string& aggregate_type) {
  std::string rows;
  for (int version = 1; version <= 2; ++version) {
    rows += std::string(version > 1 ? ", " : "") + "('" + event_id(prefix, version) + "', '" +
            aggregate_type + "', 'pair-" + prefix + "', 'ORDER_CHANGED', " +
            std::to_string(version) + ", JSON_OBJECT('pair', 1), 'PENDING', CURRENT_TIMESTAMP(6))";
  }
  db.exec(
      "INSERT INTO outbox_event (event_id, aggregate_type, aggregate_id, event_type, "
      "event_version, payload, status, created_at) VALUES " +
      rows);
}

// Whether the process is stopped (state T in /proc/<pid>/stat).
bool is_stopped(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  const std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t after_name = stat.rfind(')');
  return after_name != std::string::npos && stat.size() > after_name + 2 &&
         stat[after_name + 2] == 'T';
}

size_t records_of(const std::vector<KafkaRecord>& records, const std::string& prefix) {
  size_t n = 0;
  for (const KafkaRecord& record : records) {
    if (record.headers.count("event_id") != 0 &&
        record.headers.at("event_id").rfind(prefix, 0) == 0)
      ++n;
  }
  return n;
}

}  // namespace

TEST_CASE(
    "a relay whose transactional producers were fenced by its restarted successor marks "
    "nothing",
    "[kafka]") {
  TestKafkaCluster cluster;
  cluster->create_topic("outbox.warmup", 1);
  TestDatabase db;
  RelayTestConfig settings = kafka_relay_config("zombie",
                                                "  ordering: transactional\n"
                                                "  max_attempts: 1000\n"
                                                "  retry_backoff_initial: 100ms\n"
                                                "  retry_backoff_max: 1s\n");
  // One worker: A's batches take the pool's first producer, outbox-relay-zombie-0.
  settings.workers = 1;
  // The default lease (60 s) and delivery timeout (30 s); no coordinator timeout within the
  // test, so only B's producer can end A's transaction.
  settings.extra_kafka_properties += "    transaction.timeout.ms: 300000\n";
  const std::string transactional_id = "outbox-relay-zombie-0";

  RelayProcess relay_a(db, cluster.bootstrap(), settings);
  REQUIRE(eventually([&] { return logged(relay_a, "relay running"); }));
  const std::string claimant_a = logged_claimant(relay_a);
  // A's producers came up at its start (their init_transactions created __transaction_state),
  // so their coordinator is known once a first event went through.
  insert_single_event(db, event_id("warm", 1), "warmup");
  REQUIRE(eventually([&] { return db.count("status = 'PUBLISHED'") == 1; }));
  REQUIRE(logged(relay_a, "transactional producer " + transactional_id + " ready"));
  const int coordinator =
      cluster->leader("__transaction_state", transaction_state_partition(transactional_id));
  REQUIRE(coordinator > 0);
  const int leader = coordinator % 3 + 1;
  // One partition: A's records, then B's event behind them.
  cluster->create_topic_led_by("outbox.order", 1, leader);
  REQUIRE(cluster->leader("outbox.order", 0) == leader);
  // outbox-relay-zombie-0 learns the topic's leader (and publishes there once, in a
  // transaction) before the wire to it drops answers.
  insert_two_versions(db, "warmpair", "order");
  REQUIRE(eventually([&] { return db.count("status = 'PUBLISHED'") == 3; }));

  // A claims every version of every aggregate in one claim (one INSERT), sends them in one
  // transaction on outbox-relay-zombie-0; the leader stores them, its answers are dropped.
  cluster->proxy(leader).drop_replies();
  db.insert_versioned_events("zmb", kFencingAggregates, 1, kFencingVersions);
  const std::string leased_to_a =
      "event_id LIKE 'zmb-%' AND status = 'PUBLISHING' AND "
      "lease_owner LIKE '" +
      claimant_a + "/%'";
  REQUIRE(eventually([&] { return db.count(leased_to_a) == kFencingEvents; }));
  REQUIRE(logged(relay_a, "leased " + std::to_string(kFencingEvents) + " events"));
  const std::string internal = cluster->internal_bootstrap();
  REQUIRE(eventually(
      [&] {
        return records_of(read_topic(internal, "outbox.order", Isolation::kReadUncommitted),
                          "zmb-") == kFencingEvents;
      },
      120s, 200ms));
  relay_a.process().signal(SIGSTOP);
  REQUIRE(eventually([&] { return is_stopped(relay_a.process().pid()); }));
  // Frozen inside its transaction: no report came (every answer of the leader was dropped), so
  // the batch has not ended; nothing of it is committed.
  INFO(relay_a.log());
  REQUIRE(cluster->proxy(leader).replies_lost() > 0);
  REQUIRE_FALSE(logged(relay_a, "transaction of "));
  CHECK(records_of(read_topic(internal, "outbox.order", Isolation::kReadCommitted), "zmb-") == 0);
  CHECK(db.count(leased_to_a) == kFencingEvents);
  cluster->proxy(leader).heal();

  // The successor: the same instance id, so the same transactional.ids.
  RelayProcess relay_b(db, cluster.bootstrap(), settings);
  REQUIRE(eventually([&] { return logged(relay_b, "relay running"); }));
  const std::string claimant_b = logged_claimant(relay_b);
  REQUIRE(claimant_b != claimant_a);
  // B's start initialised outbox-relay-zombie-0 (A is fenced); its event goes behind A's.
  const std::string fence_event = event_id("fence", 1);
  insert_single_event(db, fence_event, "order");
  REQUIRE(eventually([&] {
    return db.count("event_id = '" + fence_event +
                    "' AND status = 'PUBLISHED' AND published_by "
                    "LIKE '" +
                    claimant_b + "/%'") == 1;
  }));
  CHECK(logged(relay_b, "transactional producer " + transactional_id + " ready"));
  // B's event lies behind A's open transaction on the one partition: read_committed consumers
  // get it only once A's transaction ended, and it ended aborted.
  REQUIRE(eventually(
      [&] {
        return records_of(read_topic(internal, "outbox.order", Isolation::kReadCommitted),
                          fence_event) == 1;
      },
      120s, 200ms));
  CHECK(records_of(read_topic(internal, "outbox.order", Isolation::kReadCommitted), "zmb-") == 0);

  // A resumes while its lease still holds (marking is still up to it): draining, so it claims
  // nothing new; its fenced producer can end the batch only unconfirmed.
  REQUIRE(db.count(leased_to_a + " AND lease_until > CURRENT_TIMESTAMP(6) + INTERVAL 10 SECOND") ==
          kFencingEvents);
  relay_a.process().signal(SIGTERM);
  relay_a.process().signal(SIGCONT);
  const auto a_status = relay_a.process().wait_exit(90s);
  INFO(relay_a.log());
  REQUIRE(a_status.has_value());
  CHECK(*a_status == 0);
  // Its batch ended unconfirmed because the producer was fenced ("... ended unknown:
  // outbox-relay-zombie-0: abort_transaction: _FENCED: ...").
  CHECK(logged(relay_a, "transaction of " + std::to_string(kFencingEvents) + " events on " +
                            transactional_id));
  CHECK(logged(relay_a, transactional_id + ": abort_transaction: _FENCED"));
  CHECK(db.count("published_by LIKE '" + claimant_a + "/%' AND event_id LIKE 'zmb-%'") == 0);

  // B publishes them all: the rows A gave back, or took over once A's lease ended.
  REQUIRE(eventually([&] {
    return db.count("event_id LIKE 'zmb-%' AND status = 'PUBLISHED' AND published_by LIKE '" +
                    claimant_b + "/%'") == kFencingEvents;
  }));
  stop_gracefully(relay_b);
  CHECK(db.count("published_by LIKE '" + claimant_a + "/%' AND event_id LIKE 'zmb-%'") == 0);

  // read_committed: every event of the topic exactly once, in version order.
  const std::vector<KafkaRecord> committed =
      read_topic(cluster.bootstrap(), "outbox.order", Isolation::kReadCommitted);
  const DeliveryAudit audit = audit_delivery(db, committed, "aggregate_type = 'order'");
  check_all_published_and_on_topic(audit);
  CHECK(audit.rows == kFencingEvents + 3);  // and the warm-up pair, and B's fence event
  CHECK(audit.topic.records == audit.topic.deliveries.size());
  INFO("duplicated: " << audit.topic.duplicated_ids());
  CHECK(audit.topic.duplicates() == 0);
  std::vector<KafkaRecord> versioned;
  for (const KafkaRecord& record : committed) {
    if (record.headers.at("event_id").rfind("zmb-", 0) == 0) versioned.push_back(record);
  }
  const VersionOrder order = version_order(versioned, kFencingVersions);
  CHECK(order.aggregates == kFencingAggregates);
  CHECK(order.incomplete.empty());
  CHECK(order.inversions == 0);
  // read_uncommitted: A's aborted copy of each is stored beside B's.
  const std::vector<KafkaRecord> stored =
      read_topic(cluster.bootstrap(), "outbox.order", Isolation::kReadUncommitted);
  const TopicTally everything = tally(stored);
  CHECK(records_of(stored, "zmb-") >= 2 * static_cast<size_t>(kFencingEvents));
  CHECK(everything.records > everything.deliveries.size());
  std::cout << "[figures] transactional fencing on the Kafka " << cluster->version()
            << " cluster: coordinator node " << coordinator << ", leader node " << leader << "; "
            << kFencingEvents << " events claimed by " << claimant_a << " (frozen, fenced) and "
            << "published by " << claimant_b << "; read_committed " << committed.size()
            << " records, read_uncommitted " << stored.size() << " records ("
            << everything.deliveries.size() << " distinct)\n";
}
