// The claim SQL: fixed placeholder capacities (never an empty IN ()), index hints in the
// order each scan reads, lease arithmetic on the database clock.
#include <catch2/catch.hpp>

#include "claim_sql.hpp"
#include "lease_token.hpp"

namespace claim_sql = outbox::claim_sql;

namespace {
size_t count_of(const std::string& text, char c) {
  return std::count(text.begin(), text.end(), c);
}
}  // namespace

TEST_CASE("id lists use the smallest fixed capacity", "[sql]") {
  CHECK(claim_sql::id_list_capacity(1) == 1);
  CHECK(claim_sql::id_list_capacity(2) == 4);
  CHECK(claim_sql::id_list_capacity(16) == 16);
  CHECK(claim_sql::id_list_capacity(17) == 64);
  CHECK(claim_sql::id_list_capacity(500) == 1024);
  CHECK(claim_sql::id_list_capacity(1024) == 1024);
  CHECK_THROWS(claim_sql::id_list_capacity(1025));
  CHECK(claim_sql::placeholders(1) == "?");
  CHECK(claim_sql::placeholders(3) == "?, ?, ?");
}

TEST_CASE("statements bind every value and never build an empty list", "[sql]") {
  for (size_t capacity : claim_sql::kIdListCapacities) {
    const std::string mark = claim_sql::mark_published(capacity);
    CHECK(count_of(mark, '?') == capacity + 2);
    CHECK(mark.find("IN ()") == std::string::npos);
    CHECK(mark.find("AND status = 'PUBLISHING' AND lease_owner = ?") != std::string::npos);
    CHECK(count_of(claim_sql::release(capacity), '?') == capacity + 1);
    CHECK(count_of(claim_sql::lease_rows(capacity), '?') == capacity + 3);
  }
}

TEST_CASE("claim scans read their index in order and skip locked rows", "[sql]") {
  using outbox::Ordering;
  const std::string pending = claim_sql::select_pending(Ordering::kNone);
  CHECK(pending.find("FORCE INDEX (idx_outbox_pending) WHERE e.status = 'PENDING' ORDER BY "
                     "e.created_at, e.event_id LIMIT ? FOR UPDATE SKIP LOCKED") !=
        std::string::npos);
  const std::string expired = claim_sql::select_expired(Ordering::kNone);
  CHECK(expired.find("FORCE INDEX (idx_outbox_due) WHERE e.status = 'PUBLISHING' AND "
                     "e.next_attempt_at < CURRENT_TIMESTAMP(6) ORDER BY e.next_attempt_at LIMIT "
                     "? FOR UPDATE SKIP LOCKED") != std::string::npos);
  const std::string retry = claim_sql::select_retry_due(Ordering::kNone);
  CHECK(retry.find("FORCE INDEX (idx_outbox_due) WHERE e.status = 'RETRY' AND "
                   "e.next_attempt_at <= CURRENT_TIMESTAMP(6) ORDER BY e.next_attempt_at LIMIT ? "
                   "FOR UPDATE SKIP LOCKED") != std::string::npos);
  // The lease ends on the database clock, never the host's.
  CHECK(claim_sql::lease_rows(1).find("lease_until = CURRENT_TIMESTAMP(6) + INTERVAL ? "
                                      "MICROSECOND") != std::string::npos);
  CHECK(claim_sql::mark_published(1).find("published_at = CURRENT_TIMESTAMP(6)") !=
        std::string::npos);
}

TEST_CASE("ordered scans flag rows with an older unpublished event", "[sql]") {
  using outbox::Ordering;
  for (const std::string& scan : {claim_sql::select_pending(Ordering::kPerAggregate),
                                  claim_sql::select_expired(Ordering::kPerAggregate),
                                  claim_sql::select_retry_due(Ordering::kPerAggregate),
                                  claim_sql::select_blocked_due(Ordering::kPerAggregate)}) {
    CHECK(scan.find("WHERE o.aggregate_type = e.aggregate_type AND o.aggregate_id = "
                    "e.aggregate_id AND o.unpublished = 1 ORDER BY o.event_version, "
                    "o.created_at, o.event_id LIMIT 1) < (e.event_version, e.created_at, "
                    "e.event_id), 0)") != std::string::npos);
    CHECK(count_of(scan, '?') == 1);  // only the limit is a parameter
  }
  CHECK(claim_sql::select_pending(Ordering::kNone).find("idx_outbox_aggregate") ==
        std::string::npos);
  const std::string wakeable = claim_sql::select_wakeable(4);
  CHECK(count_of(wakeable, '?') == 4);
  CHECK(wakeable.find("WHERE h.status = 'BLOCKED'") != std::string::npos);
}

TEST_CASE("failures are recorded with bound values and a capped backoff", "[sql]") {
  const std::string retriable = claim_sql::record_retriable_failure(4);
  CHECK(count_of(retriable, '?') == 5 + 4 + 1);
  CHECK(retriable.find("SET status = IF(attempts + 1 >= ?, 'FAILED', 'RETRY')") !=
        std::string::npos);
  CHECK(retriable.find("LEAST(?, ? * POW(2, LEAST(attempts, 60))) * (0.5 + RAND() / 2)") !=
        std::string::npos);
  CHECK(retriable.find("AND status = 'PUBLISHING' AND lease_owner = ?") != std::string::npos);
  const std::string permanent = claim_sql::record_permanent_failure(1);
  CHECK(count_of(permanent, '?') == 3);
  CHECK(permanent.find("SET status = 'FAILED'") != std::string::npos);
}

TEST_CASE("lease tokens are unique per claim", "[sql]") {
  const outbox::LeaseToken a("relay-a", 0, 1);
  const outbox::LeaseToken b("relay-a", 0, 2);
  const outbox::LeaseToken c("relay-a", 1, 1);
  CHECK(a.value() == "relay-a/w0/c1");
  CHECK(a != b);
  CHECK(a != c);
  const std::string id = outbox::default_instance_id();
  CHECK(id.size() <= outbox::kMaxInstanceIdLength);
  // The same instance id started twice gets two claimants: tokens never repeat.
  const std::string first = outbox::claimant_id("relay-a");
  CHECK(first.rfind("relay-a/", 0) == 0);
  CHECK(first.size() == std::string("relay-a/").size() + 6);
  CHECK(first != outbox::claimant_id("relay-a"));
  // Longest instance id + nonce + worker + a 20-digit sequence fits lease_owner VARCHAR(128).
  const outbox::LeaseToken longest(
      outbox::claimant_id(std::string(outbox::kMaxInstanceIdLength, 'x')), 63,
      UINT64_C(18446744073709551615));
  CHECK(longest.value().size() <= 128);
}
