// relay.ordering: transactional on the real cluster: a batch holding several versions of an
// aggregate is one Kafka transaction; a batch of one event per aggregate is not (a claim takes
// a head only once every earlier version is published, so nothing of its aggregate is in
// flight and order needs no transaction). Told from the topics themselves, read with kcat
// read_uncommitted: a transaction's commit marker takes an offset that holds no record, which
// an idempotent producer never leaves.
#include <catch2/catch.hpp>

#include <iostream>

#include "delivery_audit.hpp"
#include "http_scrape.hpp"
#include "kafka_faults.hpp"
#include "poll.hpp"
#include "test_kafka.hpp"
#include "topic_checks.hpp"

using namespace outbox::test;

namespace {

constexpr int kSingles = 500;
constexpr int kChainedAggregates = 50;
constexpr int kChainedVersions = 4;  // per round
constexpr int kRounds = 2;

}  // namespace

TEST_CASE(
    "transactional ordering: only a batch holding several versions of an aggregate is a Kafka "
    "transaction",
    "[kafka]") {
  TestKafkaCluster cluster;
  cluster->create_topic("outbox.audit", 4);
  cluster->create_topic("outbox.order", 4);
  TestDatabase db;
  RelayTestConfig settings = kafka_relay_config("tx-need", "  ordering: transactional\n");
  // One worker: each versioned backlog below is one claim, its chains in one batch.
  settings.workers = 1;
  // The two backlogs of single events, of two aggregate types, on one topic.
  settings.extra_kafka_settings = "  topics:\n    audit0: outbox.audit\n    audit1: outbox.audit\n";
  RelayProcess relay(db, cluster.bootstrap(), settings);
  REQUIRE(eventually([&] { return logged(relay, "relay running"); }));

  // One event per aggregate, in two backlogs (a marker is seen only below a partition's last
  // record, see below): every batch goes on the idempotent producer.
  for (int round = 0; round < kRounds; ++round) {
    db.insert_events(kSingles / kRounds, "single" + std::to_string(round),
                     "audit" + std::to_string(round), kSingles / kRounds);
    const long long target = (round + 1) * kSingles / kRounds;
    REQUIRE(eventually([&] { return db.count("status = 'PUBLISHED'") == target; }));
  }
  const auto singles = read_topic(cluster.bootstrap(), "outbox.audit", Isolation::kReadUncommitted);
  CHECK(singles.size() == static_cast<size_t>(kSingles));
  CHECK(tally(singles).deliveries.size() == static_cast<size_t>(kSingles));
  const long long single_markers = offsets_without_record(singles);
  CHECK(single_markers == 0);

  // Versions 1..4 of 50 aggregates committed at once, then versions 5..8: each backlog is
  // claimed together (the heads with their chains) and sent as one transaction, and
  // read_committed consumers get every version in order. Two, because a marker is seen only
  // below a partition's last record: the second transaction's records lie above the first's.
  for (int round = 0; round < kRounds; ++round) {
    db.insert_versioned_events("chain" + std::to_string(round), kChainedAggregates,
                               round * kChainedVersions + 1, (round + 1) * kChainedVersions);
    const long long target = kSingles + (round + 1) * kChainedAggregates * kChainedVersions;
    REQUIRE(eventually([&] { return db.count("status = 'PUBLISHED'") == target; }));
  }
  constexpr int chained_events = kRounds * kChainedAggregates * kChainedVersions;
  const double chained = metric_sample(http_get(relay.metrics_port(), "/metrics").body,
                                       "outbox_relay_events_chained_total");
  CHECK(chained > 0);
  stop_gracefully(relay);
  CHECK(db.count("event_id LIKE 'chain%' AND status = 'PUBLISHED'") == chained_events);
  const auto committed = read_topic(cluster.bootstrap(), "outbox.order", Isolation::kReadCommitted);
  const VersionOrder order = version_order(committed, kRounds * kChainedVersions);
  INFO("out of order: " << first_few(order.reordered));
  CHECK(committed.size() == static_cast<size_t>(chained_events));
  CHECK(order.aggregates == static_cast<size_t>(kChainedAggregates));
  CHECK(order.incomplete.empty());
  CHECK(order.inversions == 0);
  const auto stored = read_topic(cluster.bootstrap(), "outbox.order", Isolation::kReadUncommitted);
  // Every record read (no abort here): the offsets without one are markers, not a short read.
  CHECK(stored.size() == static_cast<size_t>(chained_events));
  const long long chain_markers = offsets_without_record(stored);
  CHECK(chain_markers > 0);
  std::cout << "[figures] transactional ordering on the Kafka " << cluster->version()
            << " cluster: " << kSingles << " events of one version each on outbox.audit, "
            << singles.size() << " records, " << single_markers << " transaction markers; "
            << chained_events << " events (" << kChainedAggregates << " aggregates x "
            << kRounds * kChainedVersions << " versions in " << kRounds << " backlogs, " << chained
            << " claimed in chains) on "
            << "outbox.order, " << committed.size() << " records read_committed, " << chain_markers
            << " transaction markers, inversions " << order.inversions << "\n";
}
