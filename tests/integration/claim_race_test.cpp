// Ordered claims while a writer commits: a claim's locking scan reads the newest committed rows,
// while its "no older unpublished version" subqueries read the statement's snapshot. A version
// pair committed during the scan must still be claimed in order: never both versions in one
// batch of independent events, never the second before the first is settled.
#include <catch2/catch.hpp>

#include <atomic>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "lease_store/mysql_lease_store.hpp"
#include "mysql/mysql_session.hpp"
#include "outcome_printing.hpp"
#include "test_database.hpp"
#include "test_session.hpp"

using outbox::LeaseToken;
using outbox::MysqlLeaseStore;
using outbox::test::open_session;
using outbox::test::TestDatabase;
using namespace std::chrono_literals;

namespace {

// The first versions whose mark has begun: a correct claim takes a second version only after
// its first one's mark committed, so later than it was recorded here.
class MarkedFirstVersions {
 public:
  // The second versions in `batch` claimed out of order: neither chained right behind their
  // first version in the batch (sent only after its acknowledgement) nor claimed after their
  // first version's mark began.
  std::vector<std::string> out_of_order(const outbox::ClaimedBatch& batch) {
    const std::lock_guard lock(mutex_);
    std::vector<std::string> found;
    for (size_t i = 0; i < batch.events.size(); ++i) {
      const outbox::OutboxEvent& event = batch.events[i];
      if (event.event_version != 2) continue;
      const bool chained = !batch.after.empty() && batch.after[i] != i &&
                           batch.events[batch.after[i]].aggregate_id == event.aggregate_id;
      if (!chained && aggregates_.count(event.aggregate_id) == 0) found.push_back(event.event_id);
    }
    return found;
  }
  // Right before the mark of `batch`'s events.
  void marking(const outbox::ClaimedBatch& batch) {
    const std::lock_guard lock(mutex_);
    for (const outbox::OutboxEvent& event : batch.events) {
      if (event.event_version == 1) aggregates_.insert(event.aggregate_id);
    }
    events_ += batch.events.size();
  }
  size_t events() {
    const std::lock_guard lock(mutex_);
    return events_;
  }

 private:
  std::mutex mutex_;
  std::set<std::string> aggregates_;
  size_t events_ = 0;
};

}  // namespace

TEST_CASE("ordered claims take a version pair committed during their scan in order",
          "[claim-store][ordering][race]") {
  TestDatabase db;
  constexpr int kPairs = 4000;
  outbox::ClaimPolicy policy;
  policy.ordering = outbox::Ordering::kPerAggregate;
  // Without chains a pair in one batch is a fault; with them only a second version chained
  // right behind its first one may share its batch.
  policy.chain_length = GENERATE(size_t{0}, size_t{7});
  INFO("relay.chain_length " << policy.chain_length);
  policy.due_scan_interval = 50ms;

  std::atomic<int> written{0};
  std::atomic<bool> writer_failed{false};
  std::mutex error_mutex;
  std::string errors;  // Catch's macros are not for other threads
  const auto fail = [&](const std::string& what, std::atomic<bool>& flag) {
    const std::lock_guard lock(error_mutex);
    errors += what + "\n";
    flag.store(true);
  };
  // The writer: each aggregate's two versions in one INSERT and commit, as fast as it goes.
  // Sessions open here: open_session() fails the test through Catch, which is for this thread.
  std::unique_ptr<outbox::MysqlSession> session = open_session(db);
  MysqlLeaseStore store_a(open_session(db), policy);
  MysqlLeaseStore store_b(open_session(db), policy);
  std::atomic<bool> claimer_failed{false};
  std::jthread writer([&] {
    const outbox::MysqlThreadScope thread_mysql;
    try {
      for (int pair = 0; pair < kPairs; ++pair) {
        const std::string id = std::to_string(pair);
        session->execute(
            "INSERT INTO outbox_event (event_id, aggregate_type, aggregate_id, event_type, "
            "event_version, payload, status, created_at) VALUES ('race-" +
            id + "-1', 'order', 'race-" + id + "', 'X', 1, '{}', 'PENDING', NOW(6)), ('race-" + id +
            "-2', 'order', 'race-" + id + "', 'X', 2, '{}', 'PENDING', NOW(6))");
        session->commit();
        written.store(pair + 1);
      }
    } catch (const std::exception& error) {
      fail(std::string("writer: ") + error.what(), writer_failed);
    }
  });

  MarkedFirstVersions marked_first;
  std::mutex found_mutex;
  std::vector<std::string> out_of_order;
  std::atomic<long long> claims{0};
  // A statement of one relay can fail against the other's (a deadlock between two marks, parks
  // and wakes, seen once in a fresh-clone run): as a relay's worker does, a failed claim is
  // simply not used, a failed wake is left to the BLOCKED rows' due scan, a failed mark is
  // retried.
  std::atomic<long long> statement_errors{0};
  // Two relays claiming, marking and waking as fast as they can, until every event is marked.
  const auto relay = [&](const std::string& name, MysqlLeaseStore& store) {
    const outbox::MysqlThreadScope thread_mysql;
    try {
      // A hang guard, not a speed bound: fails only when nothing was claimed for a minute.
      size_t seen = 0;
      auto moved_at = std::chrono::steady_clock::now();
      for (uint64_t claim = 1; marked_first.events() < 2 * kPairs; ++claim) {
        if (writer_failed.load() || claimer_failed.load()) return;
        if (marked_first.events() != seen) {
          seen = marked_first.events();
          moved_at = std::chrono::steady_clock::now();
        } else if (std::chrono::steady_clock::now() - moved_at > 60s) {
          throw std::runtime_error("no claim for 60 s at " + std::to_string(seen) + " events");
        }
        const LeaseToken token(name, 0, claim);
        auto batch = store.claim(token, 50, 30s);
        if (!batch) {
          ++statement_errors;
          continue;
        }
        ++claims;
        const std::vector<std::string> found = marked_first.out_of_order(batch.value());
        if (!found.empty()) {
          const std::lock_guard lock(found_mutex);
          out_of_order.insert(out_of_order.end(), found.begin(), found.end());
        }
        if (!batch.value().parked.empty() && !store.wake_successors(batch.value().parked))
          ++statement_errors;
        std::vector<std::string> ids;
        for (const outbox::OutboxEvent& event : batch.value().events)
          ids.push_back(event.event_id);
        if (ids.empty()) {
          std::this_thread::sleep_for(1ms);  // pacing an idle poll, not a synchronisation
          continue;
        }
        marked_first.marking(batch.value());
        for (int attempt = 1;; ++attempt) {
          auto marked = store.mark_published(token, ids);
          if (marked && marked.value().changed == ids.size()) break;
          ++statement_errors;
          if (attempt == 5) {
            throw std::runtime_error("mark failed 5 times: " +
                                     (marked ? std::to_string(marked.value().changed) + " of " +
                                                   std::to_string(ids.size()) + " rows changed"
                                             : marked.error().message));
          }
        }
        if (!store.wake_successors(ids)) ++statement_errors;
      }
    } catch (const std::exception& error) {
      fail(name + ": " + error.what(), claimer_failed);
    }
  };
  {
    std::jthread a(relay, "relay-a", std::ref(store_a));
    std::jthread b(relay, "relay-b", std::ref(store_b));
  }
  writer.join();
  INFO(errors);
  REQUIRE_FALSE(writer_failed.load());
  REQUIRE_FALSE(claimer_failed.load());
  INFO(claims.load() << " claims, " << statement_errors.load() << " failed statements");
  INFO("second versions claimed before their first one's mark: " << out_of_order.size());
  CHECK(written.load() == kPairs);
  CHECK(db.count("status = 'PUBLISHED'") == 2 * kPairs);
  CHECK(out_of_order.empty());
}
