// MysqlLeaseStore against a real MariaDB: what each transaction does to the rows, checked
// with the mariadb CLI, and that every claim scan is served by its index in read order.
#include <catch2/catch.hpp>

#include "harness/sequence_rows.hpp"
#include "lease_store/lease_sql.hpp"
#include "lease_store/mysql_lease_store.hpp"
#include "mysql/mysql_session.hpp"
#include "outcome_printing.hpp"
#include "test_database.hpp"
#include "test_session.hpp"

using outbox::LeaseToken;
using outbox::MysqlLeaseStore;
using outbox::test::event_id;
using outbox::test::open_session;
using outbox::test::TestDatabase;
using namespace std::chrono_literals;

namespace {

outbox::ClaimPolicy policy(outbox::Ordering ordering = outbox::Ordering::kNone,
                           outbox::Micros due_scan_interval = 1s) {
  outbox::ClaimPolicy p;
  p.ordering = ordering;
  p.due_scan_interval = due_scan_interval;
  p.max_attempts = 3;
  p.retry_backoff_initial = 10s;
  p.retry_backoff_max = 40s;
  return p;
}

MysqlLeaseStore open_store(const TestDatabase& db, outbox::ClaimPolicy p = policy()) {
  return MysqlLeaseStore(open_session(db), p);
}

std::vector<std::string> ids_of(const outbox::ClaimedBatch& batch) {
  std::vector<std::string> ids;
  for (const auto& event : batch.events)
    ids.push_back(event.event_id);
  return ids;
}

// `aggregates` aggregates x `versions` versions, PENDING, created version by version (agg-1 v1,
// agg-2 v1, ..., agg-0 v1, agg-1 v2, ...): the shape of a backlog after an outage.
void insert_interleaved(const TestDatabase& db, const std::string& prefix, int aggregates,
                        int versions) {
  const std::string n = std::to_string(aggregates);
  db.exec(
      "INSERT INTO outbox_event (event_id, aggregate_type, aggregate_id, event_type, "
      "event_version, payload, status, created_at) SELECT CONCAT('" +
      prefix + "', LPAD(seq, 32, '0')), 'order', CONCAT('agg-', seq % " + n +
      "), 'X', FLOOR((seq - 1) / " + n +
      ") + 1, '{}', 'PENDING', CURRENT_TIMESTAMP(6) - INTERVAL 1 HOUR + INTERVAL seq "
      "MICROSECOND FROM " +
      outbox::harness::sequence_rows(1, aggregates * versions));
}

std::string event_id_of(const TestDatabase& db, const std::string& aggregate, int version) {
  return db.scalar("SELECT event_id FROM outbox_event WHERE aggregate_id = '" + aggregate +
                   "' AND event_version = " + std::to_string(version));
}

}  // namespace

TEST_CASE("claim leases the oldest pending rows to one token on the database clock",
          "[claim-store]") {
  TestDatabase db;
  db.insert_events(10, "claim");
  MysqlLeaseStore store = open_store(db);
  const LeaseToken token("relay-a", 0, 1);
  auto batch = store.claim(token, 4, 30s);
  REQUIRE(batch);
  CHECK(ids_of(batch.value()) ==
        std::vector<std::string>{event_id("claim", 1), event_id("claim", 2), event_id("claim", 3),
                                 event_id("claim", 4)});
  const auto& first = batch.value().events[0];
  CHECK(first.aggregate_type == "order");
  CHECK(first.aggregate_id == "agg-1");
  CHECK(first.event_type == "ORDER_ACCEPTED");
  CHECK(first.event_version == 1);
  CHECK(first.payload == "{\"seq\": 1}");
  CHECK(first.age_at_claim_us >= 3'500'000'000LL);  // created an hour ago by the DB clock

  CHECK(db.count("status = 'PUBLISHING' AND lease_owner = 'relay-a/w0/c1'") == 4);
  // lease_until = DB now + 30 s (a second of slack for the test's own round trips).
  CHECK(db.count("status = 'PUBLISHING' AND lease_until BETWEEN CURRENT_TIMESTAMP(6) + INTERVAL "
                 "29 SECOND AND CURRENT_TIMESTAMP(6) + INTERVAL 31 SECOND") == 4);
  CHECK(db.count("status = 'PENDING'") == 6);
}

TEST_CASE("claims skip rows another session holds locked", "[claim-store]") {
  TestDatabase db;
  db.insert_events(10, "skip");
  auto holder = open_session(db);
  // Another relay's claim transaction, caught between its SELECT and its COMMIT.
  outbox::TransactionScope held(*holder);
  holder->execute(
      "SELECT event_id FROM outbox_event WHERE status = 'PENDING' ORDER BY created_at, event_id "
      "LIMIT 3 FOR UPDATE");
  MysqlLeaseStore store = open_store(db);
  auto batch = store.claim(LeaseToken("relay-b", 0, 1), 5, 30s);
  REQUIRE(batch);
  CHECK(ids_of(batch.value()) == std::vector<std::string>{event_id("skip", 4), event_id("skip", 5),
                                                          event_id("skip", 6), event_id("skip", 7),
                                                          event_id("skip", 8)});
}

TEST_CASE("an expired lease is reclaimed and the old owner can then mark nothing",
          "[claim-store]") {
  TestDatabase db;
  db.insert_events(3, "lease");
  MysqlLeaseStore old_owner = open_store(db);
  MysqlLeaseStore new_owner = open_store(db, policy(outbox::Ordering::kNone, 10ms));
  const LeaseToken stale("relay-old", 0, 7);
  const LeaseToken fresh("relay-new", 1, 1);
  auto first = old_owner.claim(stale, 10, 30s);
  REQUIRE(first);
  REQUIRE(first.value().events.size() == 3);

  // The old owner stalls past its lease (forced here through the CLI).
  db.exec(
      "UPDATE outbox_event SET lease_until = CURRENT_TIMESTAMP(6) - INTERVAL 1 SECOND, "
      "next_attempt_at = lease_until");
  auto second = new_owner.claim(fresh, 10, 30s);
  REQUIRE(second);
  CHECK(second.value().events.size() == 3);
  CHECK(second.value().reclaimed_notes.size() == 3);
  CHECK(second.value().reclaimed_notes[0] == event_id("lease", 1) + " (was relay-old/w0/c7)");

  // The late worker's mark changes nothing and names every row it lost.
  auto late = old_owner.mark_published(stale, ids_of(first.value()));
  REQUIRE(late);
  CHECK(late.value().changed == 0);
  CHECK(late.value().refused == ids_of(first.value()));
  CHECK(db.count("status = 'PUBLISHING' AND lease_owner = 'relay-new/w1/c1'") == 3);

  // The new owner's mark stands.
  auto marked = new_owner.mark_published(fresh, ids_of(second.value()));
  REQUIRE(marked);
  CHECK(marked.value().changed == 3);
  CHECK(marked.value().refused.empty());
  CHECK(db.count("status = 'PUBLISHED' AND published_by = 'relay-new/w1/c1' AND lease_owner IS "
                 "NULL AND lease_until IS NULL AND published_at <= CURRENT_TIMESTAMP(6)") == 3);
}

TEST_CASE("a mark repeated after an unknown commit outcome is not reported as lost",
          "[claim-store]") {
  TestDatabase db;
  db.insert_events(2, "again");
  MysqlLeaseStore store = open_store(db);
  const LeaseToken token("relay-a", 0, 1);
  auto batch = store.claim(token, 10, 30s);
  REQUIRE(batch);
  REQUIRE(store.mark_published(token, ids_of(batch.value())));
  auto repeated = store.mark_published(token, ids_of(batch.value()));
  REQUIRE(repeated);
  CHECK(repeated.value().changed == 0);
  CHECK(repeated.value().refused.empty());
}

TEST_CASE("release puts unconfirmed rows back to PENDING, only under the lease", "[claim-store]") {
  TestDatabase db;
  db.insert_events(4, "rel");
  MysqlLeaseStore store = open_store(db);
  const LeaseToken token("relay-a", 0, 1);
  auto batch = store.claim(token, 10, 30s);
  REQUIRE(batch);
  db.exec("UPDATE outbox_event SET lease_owner = 'relay-b/w0/c1' WHERE event_id = '" +
          event_id("rel", 4) + "'");
  auto released = store.release(token, ids_of(batch.value()));
  REQUIRE(released);
  CHECK(released.value().changed == 3);
  CHECK(released.value().no_longer_leased == std::vector<std::string>{event_id("rel", 4)});
  CHECK(db.count("status = 'PENDING' AND lease_owner IS NULL AND lease_until IS NULL") == 3);
  CHECK(db.count("status = 'PUBLISHING' AND lease_owner = 'relay-b/w0/c1'") == 1);
}

TEST_CASE("batches larger than one id list are chunked", "[claim-store]") {
  TestDatabase db;
  db.insert_events(2500, "big");
  MysqlLeaseStore store = open_store(db);
  const LeaseToken token("relay-a", 0, 1);
  auto batch = store.claim(token, 2500, 30s);
  REQUIRE(batch);
  REQUIRE(batch.value().events.size() == 2500);
  auto marked = store.mark_published(token, ids_of(batch.value()));
  REQUIRE(marked);
  CHECK(marked.value().changed == 2500);
  CHECK(db.count("status = 'PUBLISHED'") == 2500);
}

TEST_CASE("in ordered mode only the oldest unpublished event of an aggregate is claimable",
          "[claim-store][ordering]") {
  TestDatabase db;
  // 3 aggregates x 3 versions, created version by version: agg-1 v1, agg-2 v1, agg-0 v1, ...
  insert_interleaved(db, "ord-", 3, 3);
  const auto id_of = [&](const std::string& aggregate, int version) {
    return event_id_of(db, aggregate, version);
  };
  const auto status_of = [&](const std::string& aggregate, int version) {
    return db.scalar("SELECT status FROM outbox_event WHERE event_id = '" +
                     id_of(aggregate, version) + "'");
  };
  const auto versions_of = [](const outbox::ClaimedBatch& batch) {
    std::vector<std::string> out;
    for (const auto& event : batch.events) {
      out.push_back(event.aggregate_id + " v" + std::to_string(event.event_version));
    }
    return out;
  };
  MysqlLeaseStore store = open_store(db, policy(outbox::Ordering::kPerAggregate, 1h));
  const LeaseToken first_token("relay-a", 0, 1);
  auto first = store.claim(first_token, 10, 30s);
  REQUIRE(first);
  CHECK(versions_of(first.value()) == std::vector<std::string>{"agg-1 v1", "agg-2 v1", "agg-0 v1"});
  CHECK(first.value().parked.size() == 6);  // v2, v3 of each: parked, not read by claims again
  REQUIRE(store.wake_successors(first.value().parked));
  CHECK(db.count("status = 'BLOCKED'") == 6);  // nothing to wake: every v1 is unpublished
  CHECK(db.count("status = 'BLOCKED' AND next_attempt_at > CURRENT_TIMESTAMP(6)") == 6);
  auto nothing = store.claim(LeaseToken("relay-a", 0, 2), 10, 30s);
  REQUIRE(nothing);
  CHECK(nothing.value().events.empty());
  CHECK(nothing.value().parked.empty());

  // Publishing agg-1 v1 wakes agg-1 v2 (only v2: v3 still waits for v2).
  REQUIRE(store.mark_published(first_token, {id_of("agg-1", 1)}));
  CHECK(status_of("agg-1", 2) == "BLOCKED");
  auto woken = store.wake_successors({id_of("agg-1", 1)});
  REQUIRE(woken);
  CHECK(woken.value() == 1);
  CHECK(status_of("agg-1", 2) == "PENDING");
  CHECK(status_of("agg-1", 3) == "BLOCKED");
  // A permanent failure of agg-2 v1 stops agg-2.
  REQUIRE(store.record_failure(first_token, {id_of("agg-2", 1)},
                               outbox::PublishFailure{true, "MSG_SIZE_TOO_LARGE: too large"}));
  auto second = store.claim(LeaseToken("relay-a", 0, 3), 10, 30s);
  REQUIRE(second);
  CHECK(versions_of(second.value()) == std::vector<std::string>{"agg-1 v2"});
  CHECK(status_of("agg-2", 2) == "BLOCKED");

  // Skipping the failed event (what outboxctl skip does) releases its aggregate.
  db.exec("UPDATE outbox_event SET status = 'SKIPPED' WHERE status = 'FAILED'");
  REQUIRE(store.wake_successors({id_of("agg-2", 1)}));
  auto third = store.claim(LeaseToken("relay-a", 0, 4), 10, 30s);
  REQUIRE(third);
  CHECK(versions_of(third.value()) == std::vector<std::string>{"agg-2 v2"});

  // Safety net: agg-0 v1 published by a relay that died before its wake check. The recheck
  // of due BLOCKED rows finds agg-0 v2 free and the same claim takes it.
  db.exec("UPDATE outbox_event SET status = 'PUBLISHED', lease_owner = NULL WHERE event_id = '" +
          id_of("agg-0", 1) + "'");
  db.exec(
      "UPDATE outbox_event SET next_attempt_at = CURRENT_TIMESTAMP(6) - INTERVAL 1 SECOND "
      "WHERE status = 'BLOCKED'");
  MysqlLeaseStore rechecking = open_store(db, policy(outbox::Ordering::kPerAggregate, 1ms));
  auto fourth = rechecking.claim(LeaseToken("relay-b", 0, 1), 10, 30s);
  REQUIRE(fourth);
  CHECK(versions_of(fourth.value()) == std::vector<std::string>{"agg-0 v2"});
  // Still held back rows got a later recheck.
  CHECK(db.count("status = 'BLOCKED' AND next_attempt_at > CURRENT_TIMESTAMP(6)") == 3);
}

TEST_CASE("in ordered mode a row behind its aggregate's event in flight is left PENDING, unwritten",
          "[claim-store][ordering]") {
  TestDatabase db;
  insert_interleaved(db, "wai-", 3, 3);
  MysqlLeaseStore store = open_store(db, policy(outbox::Ordering::kPerAggregate, 1h));
  const LeaseToken heads("relay-a", 0, 1);
  auto first = store.claim(heads, 3, 30s);  // the window holds the three v1 only
  REQUIRE(first);
  REQUIRE(first.value().events.size() == 3);
  CHECK(first.value().parked.empty());
  CHECK(first.value().waiting == 0);

  // Every v1 is in flight: each v2 waits without a write; each v3 is two behind and parked.
  auto second = store.claim(LeaseToken("relay-b", 0, 1), 10, 30s);
  REQUIRE(second);
  CHECK(second.value().events.empty());
  CHECK(second.value().waiting == 3);
  CHECK(second.value().parked.size() == 3);  // the v3 only: no v2 is written
  CHECK(db.count("status = 'PENDING' AND event_version = 2 AND lease_owner IS NULL AND "
                 "next_attempt_at IS NULL") == 3);
  CHECK(db.count("status = 'BLOCKED' AND event_version = 3") == 3);

  // agg-1 v1 marked: its v2 is claimable by the next claim. agg-2 v1's lease ran out (a dead
  // owner): its v2 no longer waits on it but is parked, like a row behind a RETRY.
  REQUIRE(store.mark_published(heads, {event_id_of(db, "agg-1", 1)}));
  db.exec(
      "UPDATE outbox_event SET lease_until = CURRENT_TIMESTAMP(6) - INTERVAL 1 SECOND "
      "WHERE event_id = '" +
      event_id_of(db, "agg-2", 1) + "'");
  auto third = store.claim(LeaseToken("relay-b", 0, 2), 10, 30s);
  REQUIRE(third);
  REQUIRE(third.value().events.size() == 1);
  CHECK(third.value().events[0].event_id == event_id_of(db, "agg-1", 2));
  CHECK(third.value().waiting == 1);  // agg-0 v2: agg-0 v1 is still in flight
  CHECK(third.value().parked == std::vector<std::string>{event_id_of(db, "agg-2", 2)});
  CHECK(db.scalar("SELECT status FROM outbox_event WHERE event_id = '" +
                  event_id_of(db, "agg-0", 2) + "'") == "PENDING");
}

TEST_CASE("in ordered mode rows left waiting take at most half of a claim's window",
          "[claim-store][ordering]") {
  TestDatabase db;
  // 4 aggregates x 2 versions, every v1 before every v2.
  insert_interleaved(db, "hlf-", 4, 2);
  MysqlLeaseStore store = open_store(db, policy(outbox::Ordering::kPerAggregate, 1h));
  auto heads = store.claim(LeaseToken("relay-a", 0, 1), 4, 30s);
  REQUIRE(heads);
  REQUIRE(heads.value().events.size() == 4);
  // All four v2 wait on an event in flight (a stalled relay's, say): two stay in the window,
  // two are parked, so the next claim reads rows further on.
  auto behind = store.claim(LeaseToken("relay-b", 0, 1), 4, 30s);
  REQUIRE(behind);
  CHECK(behind.value().events.empty());
  CHECK(behind.value().waiting == 2);
  CHECK(behind.value().parked.size() == 2);
  CHECK(db.count("status = 'PENDING'") == 2);
  CHECK(db.count("status = 'BLOCKED'") == 2);
  // A claim of one row (relay.batch_size 1) leaves none waiting: its whole window would be one.
  auto single = store.claim(LeaseToken("relay-b", 0, 2), 1, 30s);
  REQUIRE(single);
  CHECK(single.value().waiting == 0);
  CHECK(single.value().parked.size() == 1);
  CHECK(db.count("status = 'PENDING'") == 1);
}

TEST_CASE("in ordered mode with chains a claim takes the versions right behind each head",
          "[claim-store][ordering][chains]") {
  TestDatabase db;
  // agg-1 and agg-2 with 5 versions each, agg-0 with 5 too; interleaved by created_at.
  insert_interleaved(db, "chn-", 3, 5);
  outbox::ClaimPolicy chained = policy(outbox::Ordering::kPerAggregate, 1h);
  chained.chain_length = 3;
  MysqlLeaseStore store = open_store(db, chained);
  // agg-2 v2 is RETRY (a failure that counted an attempt): agg-2's chain ends before it.
  db.exec(
      "UPDATE outbox_event SET status = 'RETRY', next_attempt_at = CURRENT_TIMESTAMP(6) + "
      "INTERVAL 1 HOUR WHERE event_id = '" +
      event_id_of(db, "agg-2", 2) + "'");
  const LeaseToken token("relay-a", 0, 1);
  auto claimed = store.claim(token, 20, 30s);
  REQUIRE(claimed);
  const outbox::ClaimedBatch& batch = claimed.value();
  // Heads in created_at order (agg-1, agg-2, agg-0), then each head's chain: agg-1 v2..v4 and
  // agg-0 v2..v4 (chain_length 3); agg-2 goes alone.
  std::vector<std::string> expected{event_id_of(db, "agg-1", 1), event_id_of(db, "agg-2", 1),
                                    event_id_of(db, "agg-0", 1)};
  for (const char* aggregate : {"agg-1", "agg-0"}) {
    for (int version = 2; version <= 4; ++version)
      expected.push_back(event_id_of(db, aggregate, version));
  }
  CHECK(ids_of(batch) == expected);
  CHECK(batch.chained == 6);
  // Each chained version names the one before it; heads name themselves.
  CHECK(batch.after == std::vector<size_t>{0, 1, 2, 0, 3, 4, 2, 6, 7});
  // All of them leased to the claim, each with its payload read.
  CHECK(db.count("status = 'PUBLISHING' AND lease_owner = 'relay-a/w0/c1'") == 9);
  for (const outbox::OutboxEvent& event : batch.events)
    CHECK(event.payload == "{}");
  // The fifth versions were in the scan's window behind a PENDING head: parked as before, and
  // the chained ones were not (nor anything of agg-2 but what follows its RETRY row).
  CHECK(db.count("status = 'BLOCKED'") == static_cast<long>(batch.parked.size()));
  CHECK(db.count("status = 'BLOCKED' AND event_version <= 4 AND aggregate_id <> 'agg-2'") == 0);
  CHECK(db.count("status = 'PENDING' AND aggregate_id = 'agg-1' AND event_version <= 4") == 0);
}

TEST_CASE("with chains a published head wakes the BLOCKED versions behind its successor too",
          "[claim-store][ordering][chains]") {
  TestDatabase db;
  insert_interleaved(db, "wk-", 1, 7);
  const auto id_of = [&](int version) { return event_id_of(db, "agg-0", version); };
  const auto status_of = [&](int version) {
    return db.scalar("SELECT status FROM outbox_event WHERE event_id = '" + id_of(version) + "'");
  };
  // v1 published; v2..v7 parked behind it, v5 waiting for a retry.
  db.exec("UPDATE outbox_event SET status = 'PUBLISHED' WHERE event_version = 1");
  db.exec(
      "UPDATE outbox_event SET status = 'BLOCKED', next_attempt_at = CURRENT_TIMESTAMP(6) + "
      "INTERVAL 1 HOUR WHERE event_version > 1");
  db.exec("UPDATE outbox_event SET status = 'RETRY' WHERE event_id = '" + id_of(5) + "'");
  outbox::ClaimPolicy chained = policy(outbox::Ordering::kPerAggregate, 1h);
  chained.chain_length = 2;
  MysqlLeaseStore store = open_store(db, chained);
  // v2, the head now, and the run of BLOCKED versions behind it, at most chain_length: v3, v4.
  auto woken = store.wake_successors({id_of(1)});
  REQUIRE(woken);
  CHECK(woken.value() == 3);
  CHECK(status_of(2) == "PENDING");
  CHECK(status_of(3) == "PENDING");
  CHECK(status_of(4) == "PENDING");
  CHECK(status_of(5) == "RETRY");
  CHECK(status_of(6) == "BLOCKED");
  // The next claim takes them as one chain, in version order, and parks nothing.
  auto claimed = store.claim(LeaseToken("relay-a", 0, 1), 10, 30s);
  REQUIRE(claimed);
  CHECK(ids_of(claimed.value()) == std::vector<std::string>{id_of(2), id_of(3), id_of(4)});
  CHECK(claimed.value().chained == 2);
  CHECK(claimed.value().parked.empty());

  // With chain_length 5 the run still ends at the first row that is not BLOCKED: v5 (RETRY).
  db.exec(
      "UPDATE outbox_event SET status = 'BLOCKED', lease_owner = NULL, lease_until = NULL "
      "WHERE event_version BETWEEN 2 AND 4");
  chained.chain_length = 5;
  MysqlLeaseStore longer = open_store(db, chained);
  woken = longer.wake_successors({id_of(1)});
  REQUIRE(woken);
  CHECK(woken.value() == 3);
  CHECK(status_of(5) == "RETRY");
  CHECK(db.count("status = 'BLOCKED'") == 2);  // v6, v7 wait behind v5
}

TEST_CASE("chains longer than the batch still leave room: the scan takes few heads",
          "[claim-store][ordering][chains]") {
  TestDatabase db;
  insert_interleaved(db, "cll-", 20, 5);  // 20 aggregates x 5 versions, v1 of each first
  // ordering: transactional's default: as long as the batch has room for.
  outbox::ClaimPolicy chained = policy(outbox::Ordering::kPerAggregate, 1h);
  chained.chain_length = 1000;
  MysqlLeaseStore store = open_store(db, chained);
  // The first claim knows nothing of the backlog: a window of heads, no room for chains.
  auto first = store.claim(LeaseToken("relay-a", 0, 1), 10, 30s);
  REQUIRE(first);
  CHECK(first.value().events.size() == 10);
  CHECK(first.value().chained == 0);
  // It saw that every head had versions behind it: the next claim scans a few heads only and
  // fills the batch with their chains (agg-11 v2..v5 whole, agg-12 v2..v4 to the batch's
  // end, agg-13's head alone) instead of another window of heads that leaves no room, claim
  // after claim.
  auto second = store.claim(LeaseToken("relay-a", 0, 2), 10, 30s);
  REQUIRE(second);
  CHECK(second.value().events.size() == 10);
  CHECK(second.value().chained == 7);
  CHECK(ids_of(second.value()).front() == event_id_of(db, "agg-11", 1));
}

TEST_CASE("in ordered mode a chain stops short of a row another claim holds, never skips it",
          "[claim-store][ordering][chains]") {
  TestDatabase db;
  insert_interleaved(db, "chl-", 1, 4);  // agg-0 v1..v4
  outbox::ClaimPolicy chained = policy(outbox::Ordering::kPerAggregate, 1h);
  chained.chain_length = 5;
  // Another session holds agg-0 v3 locked (another relay's scan, say): SKIP LOCKED would leave
  // out v3 and send v4 right behind v2. NOWAIT fails the chain's read instead: the head alone.
  auto holder = open_session(db);
  outbox::TransactionScope held(*holder);
  holder->execute("SELECT event_id FROM outbox_event WHERE event_id = '" +
                  event_id_of(db, "agg-0", 3) + "' FOR UPDATE");
  MysqlLeaseStore store = open_store(db, chained);
  auto claimed = store.claim(LeaseToken("relay-a", 0, 1), 10, 30s);
  REQUIRE(claimed);
  CHECK(ids_of(claimed.value()) == std::vector<std::string>{event_id_of(db, "agg-0", 1)});
  CHECK(claimed.value().chained == 0);
  CHECK(claimed.value().after.empty());
  CHECK(db.count("status = 'PUBLISHING'") == 1);
}

TEST_CASE("without ordering, due BLOCKED rows (left by an ordered relay) are woken and claimed",
          "[claim-store][ordering]") {
  TestDatabase db;
  db.insert_events(3, "left");
  db.exec("UPDATE outbox_event SET status = 'BLOCKED', next_attempt_at = CURRENT_TIMESTAMP(6)");
  MysqlLeaseStore store = open_store(db, policy(outbox::Ordering::kNone, 1ms));
  auto claimed = store.claim(LeaseToken("relay-a", 0, 1), 10, 30s);
  REQUIRE(claimed);
  CHECK(claimed.value().events.size() == 3);
}

TEST_CASE("a retriable failure backs off on the database clock, then parks as FAILED",
          "[claim-store][failure]") {
  TestDatabase db;
  db.insert_events(2, "retry");
  MysqlLeaseStore store = open_store(db, policy(outbox::Ordering::kNone, 1ms));
  const std::string id = event_id("retry", 1);
  const outbox::PublishFailure timeout{false, "_MSG_TIMED_OUT: Local: Message timed out"};
  for (int attempt = 1; attempt <= 3; ++attempt) {
    INFO("attempt " << attempt);
    const LeaseToken token("relay-a", 0, static_cast<uint64_t>(attempt));
    auto batch = store.claim(token, 1, 30s);
    REQUIRE(batch);
    REQUIRE(batch.value().events.size() == 1);
    CHECK(batch.value().events[0].event_id == id);
    CHECK(batch.value().events[0].attempts == attempt - 1);
    CHECK(batch.value().retried == (attempt == 1 ? 0U : 1U));
    auto recorded = store.record_failure(token, {id}, timeout);
    REQUIRE(recorded);
    CHECK(recorded.value().changed == 1);
    CHECK(recorded.value().no_longer_leased.empty());
    if (attempt < 3) {
      // initial 10s * 2^(attempt-1), capped at 40s, times a jitter in [0.5, 1).
      const long long ceiling = std::min(40, 10 << (attempt - 1));
      CHECK(db.count("event_id = '" + id +
                     "' AND status = 'RETRY' AND attempts = " + std::to_string(attempt) +
                     " AND last_error = '_MSG_TIMED_OUT: Local: Message timed out' AND "
                     "lease_owner IS NULL AND next_attempt_at >= CURRENT_TIMESTAMP(6) + INTERVAL " +
                     std::to_string(ceiling / 2 - 1) +
                     " SECOND AND next_attempt_at <= CURRENT_TIMESTAMP(6) + INTERVAL " +
                     std::to_string(ceiling) + " SECOND") == 1);
      // Not claimable during its backoff; claimable once it is over.
      auto during = store.claim(LeaseToken("relay-a", 1, static_cast<uint64_t>(attempt)), 1, 30s);
      REQUIRE(during);
      CHECK(during.value().events.size() == 1);
      CHECK(during.value().events[0].event_id == event_id("retry", 2));
      REQUIRE(store.release(LeaseToken("relay-a", 1, static_cast<uint64_t>(attempt)),
                            {event_id("retry", 2)}));
      db.exec(
          "UPDATE outbox_event SET next_attempt_at = CURRENT_TIMESTAMP(6) - INTERVAL 1 "
          "SECOND WHERE event_id = '" +
          id + "'");
    }
  }
  CHECK(db.count("event_id = '" + id +
                 "' AND status = 'FAILED' AND attempts = 3 AND "
                 "next_attempt_at IS NULL AND last_error LIKE '_MSG_TIMED_OUT%'") == 1);
}

TEST_CASE("a permanent failure parks the row as FAILED at once and long errors are cut",
          "[claim-store][failure]") {
  TestDatabase db;
  db.insert_events(1, "perm");
  MysqlLeaseStore store = open_store(db);
  const LeaseToken token("relay-a", 0, 1);
  REQUIRE(store.claim(token, 1, 30s));
  auto recorded = store.record_failure(token, {event_id("perm", 1)},
                                       outbox::PublishFailure{true, std::string(5000, 'x')});
  REQUIRE(recorded);
  CHECK(recorded.value().changed == 1);
  CHECK(db.count("status = 'FAILED' AND attempts = 1 AND CHAR_LENGTH(last_error) = 1024") == 1);
  // A stale claim cannot record a failure on a row it no longer holds.
  auto stale = store.record_failure(token, {event_id("perm", 1)}, outbox::PublishFailure{});
  REQUIRE(stale);
  CHECK(stale.value().changed == 0);
  CHECK(stale.value().no_longer_leased == std::vector<std::string>{event_id("perm", 1)});
}

// One row of EXPLAIN's classic output, by name: MariaDB prints id, select_type, table, type,
// possible_keys, key, key_len, ref, rows, Extra; MySQL adds partitions after table and
// filtered before Extra.
struct ExplainRow {
  std::string select_type, type, key, ref, extra;
  explicit ExplainRow(const std::vector<std::string>& row) {
    REQUIRE((row.size() == 10 || row.size() == 12));
    const size_t mysql = row.size() == 12 ? 1 : 0;
    select_type = row[1];
    type = row[3 + mysql];
    key = row[5 + mysql];
    ref = row[7 + mysql];
    extra = row.back();
  }
};

TEST_CASE("claim scans are served by their index in read order, without a sort",
          "[claim-store][explain]") {
  TestDatabase db;
  db.insert_events(5000, "plan");
  db.exec("ANALYZE TABLE outbox_event");
  const std::string explain = db.explain();
  const auto with_limit = [&explain](std::string sql) {
    sql.replace(sql.find("LIMIT ?"), 7, "LIMIT 500");
    return explain + sql;
  };
  using outbox::Ordering;
  for (const auto& [scan, index] : std::vector<std::pair<std::string, std::string>>{
           {with_limit(
                outbox::lease_sql::select_pending(outbox::lease_sql::Schema(), Ordering::kNone)),
            "idx_outbox_pending"},
           {with_limit(outbox::lease_sql::select_pending(outbox::lease_sql::Schema(),
                                                         Ordering::kPerAggregate)),
            "idx_outbox_pending"},
           {with_limit(outbox::lease_sql::select_pending(outbox::lease_sql::Schema(),
                                                         Ordering::kPerAggregate, true)),
            "idx_outbox_pending"},
           {with_limit(outbox::lease_sql::select_expired(outbox::lease_sql::Schema(),
                                                         Ordering::kPerAggregate)),
            "idx_outbox_due"},
           {with_limit(outbox::lease_sql::select_retry_due(outbox::lease_sql::Schema(),
                                                           Ordering::kPerAggregate)),
            "idx_outbox_due"},
           {with_limit(outbox::lease_sql::select_blocked_due(outbox::lease_sql::Schema(),
                                                             Ordering::kPerAggregate)),
            "idx_outbox_due"}}) {
    // EXPLAIN columns: id, select_type, table, type, possible_keys, key, key_len, ref, rows,
    // Extra.
    const auto rows = db.query(scan);
    INFO(scan);
    REQUIRE(!rows.empty());
    const ExplainRow outer(rows[0]);
    CHECK(outer.key == index);
    CHECK(outer.extra.find("filesort") == std::string::npos);
    // Ordering probes: idx_outbox_aggregate on (type, id, status), never the whole history,
    // read in its order: a sort would read every unpublished event of the aggregate for each
    // row the scan reads (MySQL sorted until the ORDER BY named the index's equality prefix).
    for (size_t i = 1; i < rows.size(); ++i) {
      const ExplainRow probe(rows[i]);
      CHECK(probe.select_type == "DEPENDENT SUBQUERY");
      CHECK(probe.key == "idx_outbox_aggregate");
      CHECK(probe.ref.find(",const") != std::string::npos);
      CHECK(probe.extra.find("filesort") == std::string::npos);
    }
  }
  // A chain's read, and the wake's read of the versions behind a woken head: one aggregate's
  // unpublished range of idx_outbox_aggregate, in its order.
  for (std::string chain : {outbox::lease_sql::select_chain(outbox::lease_sql::Schema()),
                            outbox::lease_sql::select_wake_chain(outbox::lease_sql::Schema())}) {
    for (const char* value : {"'order'", "'agg-1'", "8"})
      chain.replace(chain.find('?'), 1, value);
    const auto rows = db.query(explain + chain);
    INFO(chain);
    REQUIRE(rows.size() == 1);
    const ExplainRow read(rows[0]);
    CHECK(read.key == "idx_outbox_aggregate");
    CHECK(read.type == "ref");
    CHECK(read.extra.find("filesort") == std::string::npos);
  }
  // The wake's first question, whether anything is parked at all: one entry of the BLOCKED
  // range of idx_outbox_due, however many rows the table holds.
  const auto any_blocked =
      db.query(explain + outbox::lease_sql::any_blocked(outbox::lease_sql::Schema()));
  REQUIRE(any_blocked.size() == 1);
  CHECK(ExplainRow(any_blocked[0]).key == "idx_outbox_due");
  CHECK(ExplainRow(any_blocked[0]).ref == "const");
}

TEST_CASE(
    "a BLOCKED row loses its recheck only while an older event still is FAILED as it is parked",
    "[claim-store][ordering]") {
  TestDatabase db;
  insert_interleaved(db, "bf-", 1, 3);
  const auto id_of = [&](int version) { return event_id_of(db, "agg-0", version); };
  const auto recheck_kept = [&](int version) {
    return db.count("event_id = '" + id_of(version) + "' AND next_attempt_at IS NOT NULL") == 1;
  };
  db.exec(
      "UPDATE outbox_event SET status = 'BLOCKED', next_attempt_at = CURRENT_TIMESTAMP(6) "
      "WHERE event_version > 1");
  // What the relay runs for the rows its due scan found behind a FAILED v1. The scan read v1
  // from its statement's snapshot; an operator's skip or requeue may have committed since.
  auto session = open_session(db);
  const auto park_behind_failed = [&](int version) {
    outbox::TransactionScope transaction(*session);
    sql::PreparedStatement& park =
        session->prepare(outbox::lease_sql::park_behind_failed(outbox::ClaimPolicy{}.schema, 1));
    park.setString(1, id_of(version));
    const int changed = park.executeUpdate();
    transaction.commit();
    return changed;
  };
  for (const char* settled : {"SKIPPED", "PENDING", "RETRY", "PUBLISHED"}) {
    INFO("v1 " << settled);
    db.exec(std::string("UPDATE outbox_event SET status = '") + settled +
            "' WHERE event_version = 1");
    CHECK(park_behind_failed(2) == 0);
    CHECK(recheck_kept(2));
  }
  // Still FAILED: parked with no recheck, and so is v3 behind it (v1 holds it back too).
  db.exec("UPDATE outbox_event SET status = 'FAILED' WHERE event_version = 1");
  CHECK(park_behind_failed(3) == 1);
  CHECK_FALSE(recheck_kept(3));
  CHECK(park_behind_failed(2) == 1);
  CHECK_FALSE(recheck_kept(2));
  // A FAILED row behind it holds nothing back: v3 FAILED, v2 not parked for it.
  db.exec(
      "UPDATE outbox_event SET status = 'PUBLISHED' WHERE event_version = 1; "
      "UPDATE outbox_event SET next_attempt_at = CURRENT_TIMESTAMP(6) WHERE event_version = 2; "
      "UPDATE outbox_event SET status = 'FAILED' WHERE event_version = 3");
  CHECK(park_behind_failed(2) == 0);
  CHECK(recheck_kept(2));
}

TEST_CASE("a claim counts key and header columns against the byte budget, not only payloads",
          "[claim-store][budget]") {
  TestDatabase db;
  db.insert_events(5, "big-header");
  // Tiny payloads, 100 KB of header each: the claim holds about 100 KB per event in memory.
  db.exec("ALTER TABLE outbox_event ADD COLUMN big_header MEDIUMTEXT NULL");
  db.exec("UPDATE outbox_event SET big_header = REPEAT('h', 100000)");
  outbox::ClaimPolicy with_header = policy();
  with_header.schema =
      outbox::lease_sql::Schema(outbox::SqlIdentifier::parse("outbox_event").value(),
                                {outbox::SqlIdentifier::parse("big_header").value()});
  MysqlLeaseStore store = open_store(db, with_header);
  auto claimed = store.claim(LeaseToken("relay-a", 0, 1), 10, 30s,
                             outbox::PayloadAllowance{.bytes = 250000, .alone = true});
  REQUIRE(claimed);
  // Two fit in 250 KB; counting payloads only, all five did.
  CHECK(claimed.value().events.size() == 2);
  CHECK(claimed.value().budget_bytes > 200000);
  CHECK(claimed.value().budget_bytes <= 250000);
  CHECK(db.count("status = 'PUBLISHING'") == 2);
}
