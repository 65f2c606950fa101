// MysqlClaimStore against a real MariaDB: what each transaction does to the rows, checked
// with the mariadb CLI, and that every claim scan is served by its index in read order.
#include <catch2/catch.hpp>

#include "claim_sql.hpp"
#include "mysql/mysql_session.hpp"
#include "mysql_claim_store.hpp"
#include "test_database.hpp"

using outbox::LeaseToken;
using outbox::MysqlClaimStore;
using outbox::MysqlSession;
using outbox::test::event_id;
using outbox::test::TestDatabase;
using namespace std::chrono_literals;

namespace {

std::unique_ptr<MysqlSession> open_session(const TestDatabase& db) {
  outbox::init_mysql_driver();
  auto session = MysqlSession::open(db.endpoint(), outbox::SessionSettings{});
  if (!session) FAIL(session.error().message);
  return std::move(session).value();
}

MysqlClaimStore open_store(const TestDatabase& db, outbox::Micros reclaim_interval = 1s) {
  return MysqlClaimStore(open_session(db), reclaim_interval);
}

std::vector<std::string> ids_of(const outbox::ClaimedBatch& batch) {
  std::vector<std::string> ids;
  for (const auto& event : batch.events)
    ids.push_back(event.event_id);
  return ids;
}

}  // namespace

TEST_CASE("claim leases the oldest pending rows to one token on the database clock",
          "[claim-store]") {
  TestDatabase db;
  db.insert_events(10, "claim");
  MysqlClaimStore store = open_store(db);
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
  MysqlClaimStore store = open_store(db);
  auto batch = store.claim(LeaseToken("relay-b", 0, 1), 5, 30s);
  REQUIRE(batch);
  CHECK(ids_of(batch.value()) == std::vector<std::string>{event_id("skip", 4), event_id("skip", 5),
                                                          event_id("skip", 6), event_id("skip", 7),
                                                          event_id("skip", 8)});
}

TEST_CASE("an expired lease is reclaimed and the old owner can then mark nothing", "[claim-store]") {
  TestDatabase db;
  db.insert_events(3, "lease");
  MysqlClaimStore old_owner = open_store(db);
  MysqlClaimStore new_owner = open_store(db, 10ms);
  const LeaseToken stale("relay-old", 0, 7);
  const LeaseToken fresh("relay-new", 1, 1);
  auto first = old_owner.claim(stale, 10, 30s);
  REQUIRE(first);
  REQUIRE(first.value().events.size() == 3);

  // The old owner stalls past its lease (forced here through the CLI).
  db.exec("UPDATE outbox_event SET lease_until = CURRENT_TIMESTAMP(6) - INTERVAL 1 SECOND");
  auto second = new_owner.claim(fresh, 10, 30s);
  REQUIRE(second);
  CHECK(second.value().events.size() == 3);
  CHECK(second.value().reclaimed.size() == 3);
  CHECK(second.value().reclaimed[0] == event_id("lease", 1) + " (was relay-old/w0/c7)");

  // The late worker's mark changes nothing and names every row it lost.
  auto late = old_owner.mark_published(stale, ids_of(first.value()));
  REQUIRE(late);
  CHECK(late.value().changed == 0);
  CHECK(late.value().lease_lost == ids_of(first.value()));
  CHECK(db.count("status = 'PUBLISHING' AND lease_owner = 'relay-new/w1/c1'") == 3);

  // The new owner's mark stands.
  auto marked = new_owner.mark_published(fresh, ids_of(second.value()));
  REQUIRE(marked);
  CHECK(marked.value().changed == 3);
  CHECK(marked.value().lease_lost.empty());
  CHECK(db.count("status = 'PUBLISHED' AND published_by = 'relay-new/w1/c1' AND lease_owner IS "
                 "NULL AND lease_until IS NULL AND published_at <= CURRENT_TIMESTAMP(6)") == 3);
}

TEST_CASE("a mark repeated after an unknown commit outcome is not reported as lost",
          "[claim-store]") {
  TestDatabase db;
  db.insert_events(2, "again");
  MysqlClaimStore store = open_store(db);
  const LeaseToken token("relay-a", 0, 1);
  auto batch = store.claim(token, 10, 30s);
  REQUIRE(batch);
  REQUIRE(store.mark_published(token, ids_of(batch.value())));
  auto repeated = store.mark_published(token, ids_of(batch.value()));
  REQUIRE(repeated);
  CHECK(repeated.value().changed == 0);
  CHECK(repeated.value().lease_lost.empty());
}

TEST_CASE("release puts unconfirmed rows back to PENDING, only under the lease", "[claim-store]") {
  TestDatabase db;
  db.insert_events(4, "rel");
  MysqlClaimStore store = open_store(db);
  const LeaseToken token("relay-a", 0, 1);
  auto batch = store.claim(token, 10, 30s);
  REQUIRE(batch);
  db.exec("UPDATE outbox_event SET lease_owner = 'relay-b/w0/c1' WHERE event_id = '" +
          event_id("rel", 4) + "'");
  auto released = store.release(token, ids_of(batch.value()));
  REQUIRE(released);
  CHECK(released.value().changed == 3);
  CHECK(released.value().lease_lost == std::vector<std::string>{event_id("rel", 4)});
  CHECK(db.count("status = 'PENDING' AND lease_owner IS NULL AND lease_until IS NULL") == 3);
  CHECK(db.count("status = 'PUBLISHING' AND lease_owner = 'relay-b/w0/c1'") == 1);
}

TEST_CASE("batches larger than one id list are chunked", "[claim-store]") {
  TestDatabase db;
  db.insert_events(2500, "big");
  MysqlClaimStore store = open_store(db);
  const LeaseToken token("relay-a", 0, 1);
  auto batch = store.claim(token, 2500, 30s);
  REQUIRE(batch);
  REQUIRE(batch.value().events.size() == 2500);
  auto marked = store.mark_published(token, ids_of(batch.value()));
  REQUIRE(marked);
  CHECK(marked.value().changed == 2500);
  CHECK(db.count("status = 'PUBLISHED'") == 2500);
}

TEST_CASE("claim scans are served by their index in read order, without a sort",
          "[claim-store][explain]") {
  TestDatabase db;
  db.insert_events(5000, "plan");
  db.exec("ANALYZE TABLE outbox_event");
  const auto with_limit = [](std::string sql) {
    sql.replace(sql.find("LIMIT ?"), 7, "LIMIT 500");
    return "EXPLAIN " + sql;
  };
  for (const auto& [scan, index] : std::vector<std::pair<std::string, std::string>>{
           {with_limit(outbox::claim_sql::select_pending()), "idx_outbox_pending"},
           {with_limit(outbox::claim_sql::select_expired()), "idx_outbox_lease"}}) {
    // EXPLAIN columns: id, select_type, table, type, possible_keys, key, key_len, ref, rows,
    // Extra.
    const auto rows = db.query(scan);
    REQUIRE(rows.size() == 1);
    INFO(scan);
    CHECK(rows[0][5] == index);
    CHECK(rows[0][9].find("filesort") == std::string::npos);
  }
}
