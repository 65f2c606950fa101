// Work changing hands between relays under relay.ordering per_aggregate (the default, with
// pipelined chains), on the real cluster. The relay leases rows, not aggregates or buckets
// (docs/operating.md#per-aggregate-ordering says why), so what issue 13 asks of buckets is asked
// here of row leases:
//  - relays join and leave a drain: a relay that leaves on SIGTERM holds no lease once it has
//    exited (nothing stuck with it), every event is published, and each aggregate's versions
//    first reach Kafka in version order;
//  - a superseded owner marks nothing: a relay frozen (SIGSTOP) inside a transaction while it
//    holds leases loses that transaction's row locks when MySQL ends its silent session (the
//    relay sets wait_timeout to its lease); its leases then end on the database clock and are
//    taken by another relay. It resumes believing it still holds them (its own clock says the
//    lease has run for no time). Its deliveries succeed, and the broker keeps them as
//    duplicates, but its marks are refused row by row: the mark is conditioned on the lease,
//    so the new owner's marks stand.
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
#include "tcp_proxy.hpp"
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

// The ids of the rows the relay named `name` holds a lease on now, in id order.
std::vector<std::string> leased_rows_of(const TestDatabase& db, const std::string& name) {
  std::vector<std::string> ids;
  for (const auto& row :
       db.query("SELECT event_id FROM outbox_event WHERE status = 'PUBLISHING' AND lease_owner "
                "LIKE '" +
                name + "/%' ORDER BY event_id"))
    ids.push_back(row.at(0));
  return ids;
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

// Rows of the outbox that another session's transaction holds locked now (while only one
// relay runs, its own): what a locking read that skips locked rows leaves out, read with the
// mariadb CLI in autocommit, so its own locks end with the statement. Not read from
// information_schema.innodb_trx: InnoDB refreshes that table's snapshot only when it was not
// read for 0.1 s, so a test polling it faster reads one old snapshot for good (an earlier
// version of this test waited a minute on a transaction that had ended long before).
long long rows_locked_by_others(const TestDatabase& db) {
  const long long all = std::stoll(db.scalar("SELECT COUNT(*) FROM outbox_event"));
  const long long free = std::stoll(
      db.scalar("SELECT COUNT(*) FROM outbox_event FORCE INDEX (PRIMARY) FOR UPDATE SKIP LOCKED"));
  return all - free;
}

// Statements of other sessions on the test's database the server is still running. A SIGSTOP
// freezes the relay, not what it already sent: a claim it sent just before still runs, and
// opens its transaction, after the signal.
long long statements_running_of_others(const TestDatabase& db) {
  return std::stoll(
      db.scalar("SELECT COUNT(*) FROM information_schema.processlist WHERE DB = DATABASE() AND "
                "ID <> CONNECTION_ID() AND COMMAND <> 'Sleep'"));
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

namespace {

// Where the freeze of a superseded owner lands.
enum class Freeze {
  // Between its transactions, for a moment: it wakes with its deliveries acknowledged and its
  // marks to write, and each is refused.
  kBetweenTransactions,
  // Inside a claim or mark transaction, holding that transaction's row locks, until MySQL ends
  // its silent session (the relay sets wait_timeout to its lease): longer than its delivery
  // timeout, so it wakes with its deliveries failed, and what it then writes (releases, or a
  // mark retried on a new session) is refused.
  kInsideTransaction,
};

void superseded_owner_marks_nothing(Freeze where) {
  TestKafkaCluster cluster;
  cluster->create_topic(kTopic, 4);
  TestDatabase db;
  constexpr int kVersions = 30;
  db.insert_versioned_events("stale", kAggregates, 1, kVersions);
  const long long events = static_cast<long long>(kVersions) * kAggregates;
  std::vector<std::unique_ptr<RelayProcess>> relays;
  const auto all_logs = [&] { return pointers(relays); };
  const bool inside = where == Freeze::kInsideTransaction;
  // One worker, whose broker answers come late, so it holds leases on rows it is waiting to
  // mark most of the time. To be caught inside a transaction, its MySQL answers also come
  // 50 ms late through a proxy, so it spends much of its time inside one (each takes a few
  // statements), and its lease is 20 s (the delivery timeout 15 s): MySQL ends a session of
  // the relay that stays silent that long (its wait_timeout is the lease).
  for (int node = 1; node <= 3; ++node)
    cluster->proxy(node).delay_replies(inside ? 200ms : 1000ms);
  TcpProxy mysql(db.endpoint().host, db.endpoint().port);
  if (inside) mysql.delay_replies(50ms);
  {
    RelayTestConfig settings = kafka_relay_config("stale", "  ordering: per_aggregate\n");
    settings.mysql_port = mysql.port();
    settings.workers = 1;
    if (inside) {
      settings.lease = "20s";
      settings.extra_kafka_properties += "    message.timeout.ms: 15000\n";
    }
    relays.push_back(std::make_unique<RelayProcess>(db, cluster.bootstrap(), settings));
    REQUIRE(eventually([&] { return logged(*relays[0], "relay running"); }));
  }
  RelayProcess& stale = *relays[0];

  // Freeze it while it holds leases from earlier claims. What it sent before the signal runs
  // first (a claim sent just before still opens its transaction), so the freeze is judged
  // once the server finished its statements. A statement whose answer the frozen relay does
  // not read may never end (the server waits to write it): such a freeze, and one that landed
  // elsewhere than asked or while it held no lease, is undone and tried again.
  std::vector<std::string> taken;
  int freezes = 0;
  auto frozen_at = std::chrono::steady_clock::now();
  for (;;) {
    REQUIRE(freezes < 200);
    REQUIRE(eventually([&] { return leased_by(db, "stale") > 0; }, 60s, 1ms));
    stale.process().signal(SIGSTOP);
    frozen_at = std::chrono::steady_clock::now();
    ++freezes;
    const bool settled =
        eventually([&] { return statements_running_of_others(db) == 0; }, 10s, 1ms);
    // Judged twice: a statement the relay wrote just before the signal may reach the server
    // after the first look (the proxy passes requests on at once, but not instantly), and a
    // late COMMIT would change both what is locked and what is leased.
    const auto landed = [&] {
      return statements_running_of_others(db) == 0 && (rows_locked_by_others(db) > 0) == inside;
    };
    if (settled && landed()) {
      taken = leased_rows_of(db, "stale");
      if (!taken.empty() && landed() && leased_rows_of(db, "stale") == taken) break;
      taken.clear();
    }
    stale.process().signal(SIGCONT);
  }
  std::sort(taken.begin(), taken.end());  // for binary_search, whatever the server's collation
  for (int node = 1; node <= 3; ++node)
    cluster->proxy(node).delay_replies(0ms);
  mysql.delay_replies(0ms);
  // An open transaction of the frozen relay holds row locks that no other relay's claim can
  // take (they skip locked rows) until MySQL ends its session: wait_timeout, which the relay
  // sets to its lease (MariaDB's default is 8 hours). Then the server rolls it back.
  const long long locked_when_frozen = rows_locked_by_others(db);
  REQUIRE(eventually([&] { return rows_locked_by_others(db) == 0; }, 120s, 10ms));
  const auto locks_held_for = std::chrono::duration_cast<std::chrono::seconds>(
      std::chrono::steady_clock::now() - frozen_at);
  // Its leases end on the database clock (the clock every lease is read by), if they had not
  // yet: the frozen relay still believes it holds them, as after any pause longer than the
  // lease.
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

  // It wakes and settles what it had in flight: each write it then tries for a taken row (a
  // mark of what was delivered, a release of what was not) is refused, because the row's lease
  // is no longer its own. Each refusal is logged with its event id.
  const std::string stale_claimant = logged_claimant(stale);
  stale.process().signal(SIGCONT);
  // "event <id>: <write>, claim <token> no longer holds its lease", by write.
  const auto refusals = [&] {
    std::map<std::string, std::vector<std::string>> by_write;
    const std::string log = stale.log();
    const std::string claim = " claim " + stale_claimant + "/";
    const std::string refused = " no longer holds its lease";
    for (size_t at = log.find(claim); at != std::string::npos; at = log.find(claim, at + 1)) {
      const size_t token_end = log.find(' ', at + claim.size());
      if (token_end == std::string::npos || log.compare(token_end, refused.size(), refused) != 0)
        continue;
      const size_t line = log.rfind('\n', at) + 1;  // npos + 1 == 0: the first line
      const size_t event = log.find("event ", line);
      const size_t colon = log.find(": ", event);
      if (event >= at || colon >= at) continue;
      std::string write = log.substr(colon + 2, at - colon - 2);  // "not released,"
      if (write.ends_with(',')) write.pop_back();
      by_write[write].push_back(log.substr(event + 6, colon - event - 6));
    }
    return by_write;
  };
  const auto refused_count = [&] {
    size_t n = 0;
    for (const auto& [write, ids] : refusals())
      n += ids.size();
    return n;
  };
  if (!eventually([&] { return refused_count() >= taken.size(); }, 120s))
    FAIL("the woken relay's writes were not all refused; its log:\n" << stale.log());
  stop_gracefully(stale);
  stop_gracefully(*relays[1]);

  // The table, read with the mariadb CLI: every taken row stays the successor's, none the
  // stale relay's, and the stale relay holds no lease.
  CHECK(taken_where("published_by LIKE 'successor/%'") == static_cast<long long>(taken.size()));
  CHECK(taken_where("published_by LIKE 'stale/%'") == 0);
  CHECK(leased_by(db, "stale") == 0);

  // Every refusal is of a taken row; a refused mark's event really went out twice: the stale
  // relay's copy and the successor's are both on the topic, counted by kcat.
  const auto refused = refusals();
  const auto marks = refused.find("delivered, but");  // the mark's refusal
  const std::vector<std::string> refused_marks =
      marks == refused.end() ? std::vector<std::string>{} : marks->second;
  CHECK(static_cast<long long>(refused_marks.size()) == leases_lost_at_exit(stale));
  // Caught between transactions it wakes well inside its delivery timeout: its deliveries are
  // acknowledged, and what it writes is marks.
  if (!inside) CHECK(refused_marks.size() == taken.size());
  const TopicEnd end = check_topic(cluster, db, kVersions, all_logs());
  const TopicTally topic = tally(end.records);
  std::string summary;
  for (const auto& [write, ids] : refused) {
    summary += (summary.empty() ? "" : ", ") + std::to_string(ids.size()) + " '" + write + "'";
    for (const std::string& id : ids) {
      INFO(write << " " << id);
      CHECK(std::binary_search(taken.begin(), taken.end(), id));
      if (write == "delivered, but") CHECK(topic.deliveries.at(id) >= 2);
    }
  }
  std::cout << "[figures] a frozen relay's leases taken over on the Kafka " << cluster->version()
            << " cluster: " << taken.size() << " rows leased by " << stale_claimant
            << " when frozen " << (inside ? "inside a transaction" : "between transactions")
            << " (SIGSTOP " << freezes << " times to land there)";
  if (inside) {
    std::cout << ", its " << locked_when_frozen << " row locks ended by MySQL after "
              << locks_held_for.count() << " s (wait_timeout = the 20 s lease)";
  }
  std::cout << "; all marked by the successor; refused on waking: " << summary << "; "
            << end.records.size() << " records for " << events << " events, duplicates "
            << end.duplicates.summary() << ", inversions " << end.order.inversions << "\n";
}

}  // namespace

TEST_CASE(
    "a relay whose leases ended while it was frozen between transactions and were taken over "
    "marks none of those rows on waking: its deliveries are duplicates, the new owner's marks "
    "stand",
    "[kafka]") {
  superseded_owner_marks_nothing(Freeze::kBetweenTransactions);
}

TEST_CASE(
    "a relay frozen inside a transaction loses its row locks when MySQL ends its session "
    "after the lease, and on waking writes nothing to the rows taken over",
    "[kafka]") {
  superseded_owner_marks_nothing(Freeze::kInsideTransaction);
}
