// outboxctl replay, end to end (replay_scenario.hpp). Read back with kcat (read_topic_exact,
// read_topic) and checked in the table with the database's own CLI.
#include "replay_scenario.hpp"

#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>
#include <map>
#include <optional>

#include "harness/temp_dir.hpp"
#include "harness/version_order.hpp"
#include "poll.hpp"
#include "sick_partitions.hpp"
#include "test_kafka.hpp"

namespace outbox::test {
namespace {

constexpr int kVersions = 5;

// A record without its outbox_replay header, as text to compare a replayed copy with its
// first publication.
std::string without_replay_header(const harness::ExactRecord& record) {
  std::string text = std::to_string(record.partition) + "|" + record.key.value_or("<null>") + "|" +
                     record.value.value_or("<null>");
  for (const auto& [name, value] : record.headers) {
    if (name != "outbox_replay") text += "|" + name + "=" + value.value_or("<null>");
  }
  return text;
}

// What the table says about the rows (a replay must change none of it).
std::string rows_fingerprint(const TestDatabase& db) {
  return db.scalar(
      "SELECT CONCAT(COUNT(*), ' ', SUM(status = 'PUBLISHED'), ' ', "
      "COALESCE(SUM(CRC32(CONCAT(event_id, status, published_by, published_at, attempts))), 0)) "
      "FROM outbox_event");
}

// CHECKs the topic after one replay of all its events: every event twice, the first copy
// without outbox_replay, the second the first's record plus outbox_replay == replay_id, the
// replayed copies of each aggregate in version order.
void check_replayed_once(const std::string& bootstrap, const TypedEvents& events,
                         const std::string& replay_id) {
  INFO("topic " << events.topic());
  const std::vector<harness::ExactRecord> records =
      harness::read_topic_exact(bootstrap, events.topic());
  CHECK(records.size() == static_cast<size_t>(2 * events.count()));
  std::map<std::string, std::vector<const harness::ExactRecord*>> by_event;
  for (const harness::ExactRecord& record : records)
    by_event[record.header("event_id").value_or("?")].push_back(&record);
  CHECK(by_event.size() == static_cast<size_t>(events.count()));
  for (const auto& [event_id, copies] : by_event) {
    INFO("event " << event_id);
    REQUIRE(copies.size() == 2);
    // (partition, offset) order: on one partition, the first publication comes first.
    CHECK_FALSE(copies[0]->header("outbox_replay").has_value());
    CHECK(copies[1]->header("outbox_replay") == replay_id);
    CHECK(without_replay_header(*copies[1]) == without_replay_header(*copies[0]));
  }
  // The replayed copies alone: each aggregate's versions 1..n once, in order, on one partition.
  std::vector<harness::KafkaRecord> replayed;
  for (const auto& record : harness::read_topic(bootstrap, events.topic())) {
    if (record.headers.count("outbox_replay") != 0) replayed.push_back(record);
  }
  const harness::VersionOrder order = harness::version_order(replayed, events.versions);
  CHECK(order.aggregates == static_cast<size_t>(events.aggregates));
  CHECK(order.duplicates == 0);
  CHECK(order.inversions == 0);
  CHECK(order.split.empty());
  CHECK(order.incomplete.empty());
}

}  // namespace

void run_replay_scenario(const TestDatabase& db, const std::string& bootstrap,
                         const RelayTestConfig& settings) {
  const std::string base = created_base(db);  // an hour ago
  const TypedEvents order{"ord", "order", 20, kVersions, 2, 0};
  const TypedEvents billing{"bill", "billing", 20, kVersions, 2, 1};
  insert_typed_events(db, order, base);
  insert_typed_events(db, billing, base);
  RelayProcess relay(db, bootstrap, settings);
  REQUIRE(eventually([&] { return db.count("status = 'PUBLISHED'") == 200; }));
  stop_gracefully(relay);
  // The relay's own config (same topics, same message shape), with retention for the purge.
  const harness::TempDir dir("outbox-replay");
  std::ifstream relay_yaml(relay.config_file());
  const std::string config =
      dir.write("relay.yaml", std::string(std::istreambuf_iterator<char>(relay_yaml), {}) +
                                  "retention:\n  broker_redelivery_window: 1d\n");
  REQUIRE(read_topic(bootstrap, order.topic()).size() == 100);
  const std::string before = rows_fingerprint(db);

  const auto dry = run_outboxctl(
      config, {"--json", "replay", "--since", "2h", "--topic", "outbox.order", "--dry-run"});
  INFO(dry.out << dry.err);
  REQUIRE(dry.status == 0);
  CHECK(jq(".would_replay", dry.out) == "100");
  CHECK(jq(".by_topic[\"outbox.order\"]", dry.out) == "100");
  CHECK(jq(".replay_id", dry.out) == "null");
  CHECK(jq(".purged_in_window.events + .purged_in_window.at_window_edges", dry.out) == "0");
  CHECK(read_topic(bootstrap, order.topic()).size() == 100);

  const auto replayed =
      run_outboxctl(config, {"--json", "replay", "--since", "2h", "--topic", "outbox.order",
                             "--rate", "500", "--batch-size", "7"});
  INFO(replayed.out << replayed.err);
  REQUIRE(replayed.status == 0);
  CHECK(jq(".replayed", replayed.out) == "100");
  CHECK(jq(".delivered", replayed.out) == "100");
  CHECK(jq(".failed", replayed.out) == "0");
  CHECK(jq(".version_inversions", replayed.out) == "0");
  const std::string replay_id = jq(".replay_id", replayed.out);
  CHECK(replay_id.find("Z ") != std::string::npos);
  check_replayed_once(bootstrap, order, replay_id);
  CHECK(read_topic(bootstrap, billing.topic()).size() == 100);  // not in the filter
  CHECK(rows_fingerprint(db) == before);                        // only read

  // By aggregate type, in text: the same for billing.
  const auto by_type =
      run_outboxctl(config, {"replay", "--since", "2h", "--aggregate-type", "billing"});
  INFO(by_type.out << by_type.err);
  REQUIRE(by_type.status == 0);
  CHECK(by_type.out.find("replayed:") != std::string::npos);
  const std::optional<std::string> billing_id =
      harness::read_topic_exact(bootstrap, billing.topic()).back().header("outbox_replay");
  REQUIRE(billing_id.has_value());
  check_replayed_once(bootstrap, billing, *billing_id);
  CHECK(rows_fingerprint(db) == before);

  // Retention deletes two order aggregates, created 31 days ago and published 30 days ago: a
  // window reaching back that far says how many of its events it cannot replay.
  db.exec(
      "UPDATE outbox_event SET created_at = created_at - INTERVAL 31 DAY, published_at = "
      "CURRENT_TIMESTAMP(6) - INTERVAL 30 DAY WHERE aggregate_type = 'order' AND aggregate_id "
      "IN ('agg-0', 'agg-1')");
  const auto purged = run_outboxctl(config, {"--json", "purge", "--published-after", "7d"});
  INFO(purged.out << purged.err);
  REQUIRE(purged.status == 0);
  CHECK(jq(".outbox_event.deleted", purged.out) == std::to_string(2 * kVersions));
  const auto after = run_outboxctl(
      config, {"--json", "replay", "--since", "32d", "--topic", "outbox.order", "--dry-run"});
  INFO(after.out << after.err);
  REQUIRE(after.status == 0);
  CHECK(jq(".would_replay", after.out) == std::to_string(100 - 2 * kVersions));
  // Their hour lies wholly inside the window.
  CHECK(jq(".purged_in_window.events", after.out) == std::to_string(2 * kVersions));
  CHECK(jq(".purged_in_window.at_window_edges", after.out) == "0");
  // A window that ends before they were created counts none of them; another topic lost none.
  const auto later = run_outboxctl(
      config, {"--json", "replay", "--since", "2h", "--topic", "outbox.order", "--dry-run"});
  CHECK(jq(".purged_in_window.events + .purged_in_window.at_window_edges", later.out) == "0");
  const auto other = run_outboxctl(
      config, {"--json", "replay", "--since", "32d", "--topic", "outbox.billing", "--dry-run"});
  CHECK(jq(".purged_in_window.events + .purged_in_window.at_window_edges", other.out) == "0");
  CHECK(jq(".would_replay", other.out) == "100");
}

}  // namespace outbox::test
