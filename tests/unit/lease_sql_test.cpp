// The claim SQL: fixed placeholder capacities (never an empty IN ()), index hints in the
// order each scan reads, lease arithmetic on the database clock.
#include <catch2/catch.hpp>

#include "lease_store/lease_sql.hpp"
#include "lease_store/lease_token.hpp"
#include "lease_store/mysql_lease_store.hpp"

namespace lease_sql = outbox::lease_sql;

namespace {
size_t count_of(const std::string& text, char c) {
  return std::count(text.begin(), text.end(), c);
}

const lease_sql::Schema kSchema;  // outbox_event, no message columns
}  // namespace

TEST_CASE("id lists use the smallest fixed capacity", "[sql]") {
  CHECK(lease_sql::id_list_capacity(1) == 1);
  CHECK(lease_sql::id_list_capacity(2) == 4);
  CHECK(lease_sql::id_list_capacity(16) == 16);
  CHECK(lease_sql::id_list_capacity(17) == 64);
  CHECK(lease_sql::id_list_capacity(500) == 1024);
  CHECK(lease_sql::id_list_capacity(1024) == 1024);
  CHECK_THROWS(lease_sql::id_list_capacity(1025));
  CHECK(lease_sql::placeholders(1) == "?");
  CHECK(lease_sql::placeholders(3) == "?, ?, ?");
}

TEST_CASE("statements bind every value and never build an empty list", "[sql]") {
  for (size_t capacity : lease_sql::kIdListCapacities) {
    const std::string mark = lease_sql::mark_published(kSchema, capacity);
    CHECK(count_of(mark, '?') == capacity + 2);
    CHECK(mark.find("IN ()") == std::string::npos);
    CHECK(mark.find("AND status = 'PUBLISHING' AND lease_owner = ?") != std::string::npos);
    CHECK(count_of(lease_sql::release(kSchema, capacity), '?') == capacity + 1);
    CHECK(count_of(lease_sql::lease_rows(kSchema, capacity), '?') == capacity + 3);
  }
}

TEST_CASE("claim scans read their index in order and skip locked rows", "[sql]") {
  using outbox::Ordering;
  const std::string pending = lease_sql::select_pending(kSchema, Ordering::kNone);
  CHECK(pending.find("FORCE INDEX (idx_outbox_pending) WHERE e.status = 'PENDING' ORDER BY "
                     "e.created_at, e.event_id LIMIT ? FOR UPDATE SKIP LOCKED") !=
        std::string::npos);
  const std::string expired = lease_sql::select_expired(kSchema, Ordering::kNone);
  CHECK(expired.find("FORCE INDEX (idx_outbox_due) WHERE e.status = 'PUBLISHING' AND "
                     "e.next_attempt_at < CURRENT_TIMESTAMP(6) ORDER BY e.next_attempt_at LIMIT "
                     "? FOR UPDATE SKIP LOCKED") != std::string::npos);
  const std::string retry = lease_sql::select_retry_due(kSchema, Ordering::kNone);
  CHECK(retry.find("FORCE INDEX (idx_outbox_due) WHERE e.status = 'RETRY' AND "
                   "e.next_attempt_at <= CURRENT_TIMESTAMP(6) ORDER BY e.next_attempt_at LIMIT ? "
                   "FOR UPDATE SKIP LOCKED") != std::string::npos);
  // The lease ends on the database clock, never the host's.
  CHECK(lease_sql::lease_rows(kSchema, 1)
            .find("lease_until = CURRENT_TIMESTAMP(6) + INTERVAL ? "
                  "MICROSECOND") != std::string::npos);
  CHECK(lease_sql::mark_published(kSchema, 1).find("published_at = CURRENT_TIMESTAMP(6)") !=
        std::string::npos);
}

TEST_CASE("ordered scans flag rows with an older unpublished event", "[sql]") {
  using outbox::Ordering;
  const char* const oldest_unpublished =
      "WHERE o.aggregate_type = e.aggregate_type AND o.aggregate_id = e.aggregate_id AND "
      "o.unpublished = 1 ORDER BY o.aggregate_type, o.aggregate_id, o.unpublished, "
      "o.event_version, o.created_at, o.event_id LIMIT 1)";
  // The claim scans tell a head (0) from a row behind the event in flight (2: left PENDING)
  // and one behind anything else (1: parked); the status is read only behind an older event.
  // A row the statement's snapshot does not hold yet (no oldest event found: NULL) is neither
  // (4: left PENDING, unwritten): the next claim's snapshot holds it.
  for (const std::string& scan : {lease_sql::select_pending(kSchema, Ordering::kPerAggregate),
                                  lease_sql::select_expired(kSchema, Ordering::kPerAggregate),
                                  lease_sql::select_retry_due(kSchema, Ordering::kPerAggregate)}) {
    CHECK(scan.find(std::string("CASE (SELECT o.event_version, o.created_at, o.event_id "
                                "FROM `outbox_event` o FORCE INDEX (idx_outbox_aggregate) ") +
                    oldest_unpublished + " < (e.event_version, e.created_at, e.event_id) WHEN 0 " +
                    "THEN 0 WHEN 1 THEN COALESCE((SELECT IF(o.status = 'PUBLISHING' AND "
                    "o.lease_until > CURRENT_TIMESTAMP(6), 2, 1) FROM `outbox_event` o FORCE "
                    "INDEX (idx_outbox_aggregate) " +
                    oldest_unpublished + ", 1) ELSE 4 END") != std::string::npos);
    CHECK(count_of(scan, '?') == 1);  // only the limit is a parameter
  }
  const std::string blocked_due = lease_sql::select_blocked_due(kSchema, Ordering::kPerAggregate);
  CHECK(blocked_due.find(std::string(oldest_unpublished) +
                         " < (e.event_version, e.created_at, e.event_id), 1)") !=
        std::string::npos);
  CHECK(count_of(blocked_due, '?') == 1);
  CHECK(lease_sql::select_pending(kSchema, Ordering::kNone).find("idx_outbox_aggregate") ==
        std::string::npos);
  const std::string wakeable = lease_sql::select_wakeable(kSchema, 4);
  CHECK(count_of(wakeable, '?') == 4);
  CHECK(wakeable.find("WHERE h.status = 'BLOCKED'") != std::string::npos);
}

TEST_CASE("failures are recorded with bound values and a capped backoff", "[sql]") {
  const std::string retriable = lease_sql::record_retriable_failure(kSchema, 4);
  CHECK(count_of(retriable, '?') == 5 + 4 + 1);
  CHECK(retriable.find("SET status = IF(attempts + 1 >= ?, 'FAILED', 'RETRY')") !=
        std::string::npos);
  CHECK(retriable.find("LEAST(?, ? * POW(2, LEAST(attempts, 60))) * (0.5 + RAND() / 2)") !=
        std::string::npos);
  CHECK(retriable.find("AND status = 'PUBLISHING' AND lease_owner = ?") != std::string::npos);
  const std::string permanent = lease_sql::record_permanent_failure(kSchema, 1);
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

namespace {

// Records what a binder sets, in order.
class RecordedParameters final : public lease_sql::Parameters {
 public:
  void text(const std::string& value) override { values.push_back(value); }
  void integer(int64_t value) override { values.push_back("int " + std::to_string(value)); }
  void count(uint64_t value) override { values.push_back("count " + std::to_string(value)); }
  std::vector<std::string> values;
};

// How many values the binder sets for a chunk of `capacity` placeholders.
template <typename Statement>
size_t bound_for(const Statement& statement, size_t capacity) {
  const std::vector<std::string> ids{"a"};
  RecordedParameters recorded;
  statement.bind(recorded, lease_sql::IdChunk{ids, 0, 1, capacity});
  return recorded.values.size();
}

}  // namespace

TEST_CASE("each statement's binder sets every placeholder of its SQL", "[sql]") {
  using namespace std::chrono_literals;
  const std::string owner = "relay-a/w0/c1";
  const std::string error = "boom";
  for (size_t capacity : lease_sql::kIdListCapacities) {
    INFO("capacity " << capacity);
    const auto placeholders_of = [&](std::string (*sql)(const lease_sql::Schema&, size_t)) {
      return count_of(sql(kSchema, capacity), '?');
    };
    CHECK(bound_for(lease_sql::ParkBlocked{.recheck_min = 1s, .recheck_max = 60s}, capacity) ==
          placeholders_of(lease_sql::ParkBlocked::sql));
    CHECK(bound_for(lease_sql::WakeBlocked{}, capacity) ==
          placeholders_of(lease_sql::WakeBlocked::sql));
    CHECK(bound_for(lease_sql::SelectWakeable{}, capacity) ==
          placeholders_of(lease_sql::SelectWakeable::sql));
    CHECK(bound_for(lease_sql::LeaseRows{.owner = owner, .lease = 30s}, capacity) ==
          placeholders_of(lease_sql::LeaseRows::sql));
    CHECK(bound_for(lease_sql::MarkPublished{.owner = owner}, capacity) ==
          placeholders_of(lease_sql::MarkPublished::sql));
    CHECK(bound_for(lease_sql::SelectMarkedBy{.owner = owner}, capacity) ==
          placeholders_of(lease_sql::SelectMarkedBy::sql));
    CHECK(bound_for(lease_sql::Release{.owner = owner}, capacity) ==
          placeholders_of(lease_sql::Release::sql));
    CHECK(bound_for(lease_sql::SelectReleased{}, capacity) ==
          placeholders_of(lease_sql::SelectReleased::sql));
    CHECK(bound_for(lease_sql::SelectHeldBy{.owner = owner}, capacity) ==
          placeholders_of(lease_sql::SelectHeldBy::sql));
    CHECK(bound_for(lease_sql::RecordRetriableFailure{.max_attempts = 3,
                                                      .backoff_initial = 1s,
                                                      .backoff_max = 5min,
                                                      .last_error = error,
                                                      .owner = owner},
                    capacity) == placeholders_of(lease_sql::RecordRetriableFailure::sql));
    CHECK(bound_for(lease_sql::RecordPermanentFailure{.last_error = error, .owner = owner},
                    capacity) == placeholders_of(lease_sql::RecordPermanentFailure::sql));
    CHECK(bound_for(lease_sql::RecordDeferral{.delay = 10s, .last_error = error, .owner = owner},
                    capacity) == placeholders_of(lease_sql::RecordDeferral::sql));
    CHECK(bound_for(lease_sql::ParkBehindFailed{}, capacity) ==
          placeholders_of(lease_sql::ParkBehindFailed::sql));
    CHECK(bound_for(lease_sql::CountLeaseExpiry{}, capacity) ==
          placeholders_of(lease_sql::CountLeaseExpiry::sql));
    CHECK(bound_for(lease_sql::FailUnsettled{.reason = error}, capacity) ==
          placeholders_of(lease_sql::FailUnsettled::sql));
  }
  RecordedParameters scan;
  lease_sql::ScanLimit{500}.bind(scan);
  CHECK(scan.values == std::vector<std::string>{"count 500"});
}

TEST_CASE("binders set values in their SQL's order, ids padded with the last one", "[sql]") {
  using namespace std::chrono_literals;
  const std::vector<std::string> ids{"e1", "e2"};
  const lease_sql::IdChunk chunk{ids, 0, 2, 4};
  const std::string owner = "relay-a/w0/c1";
  RecordedParameters mark;
  lease_sql::MarkPublished{.owner = owner}.bind(mark, chunk);
  CHECK(mark.values == std::vector<std::string>{owner, "e1", "e2", "e2", "e2", owner});
  RecordedParameters lease;
  lease_sql::LeaseRows{.owner = owner, .lease = 30s}.bind(lease, chunk);
  CHECK(lease.values ==
        std::vector<std::string>{owner, "int 30000000", "int 30000000", "e1", "e2", "e2", "e2"});
  RecordedParameters park;
  lease_sql::ParkBlocked{.recheck_min = 1s, .recheck_max = 60s}.bind(park, chunk);
  CHECK(park.values ==
        std::vector<std::string>{"int 60000000", "int 1000000", "e1", "e2", "e2", "e2"});
  const std::string error = "_MSG_TIMED_OUT";
  RecordedParameters retriable;
  lease_sql::RecordRetriableFailure{.max_attempts = 3,
                                    .backoff_initial = 1s,
                                    .backoff_max = 5min,
                                    .last_error = error,
                                    .owner = owner}
      .bind(retriable, chunk);
  CHECK(retriable.values == std::vector<std::string>{"int 3", "int 3", "int 300000000",
                                                     "int 1000000", error, "e1", "e2", "e2", "e2",
                                                     owner});
  // A later chunk of a longer list starts at its own offset.
  const std::vector<std::string> long_list{"e1", "e2", "e3"};
  RecordedParameters release;
  lease_sql::Release{.owner = owner}.bind(release, lease_sql::IdChunk{long_list, 2, 1, 1});
  CHECK(release.values == std::vector<std::string>{"e3", owner});
}

TEST_CASE("an error text is always storable as last_error", "[sql]") {
  using outbox::kMaxLastErrorLength;
  using outbox::storable_error;
  CHECK(storable_error("MSG_TIMED_OUT: Local: Message timed out") ==
        "MSG_TIMED_OUT: Local: Message timed out");
  // Control characters and every non-ASCII byte (here a topic name in UTF-8) are escaped.
  CHECK(storable_error("topic \xc3\xb6rder\n") == "topic \\xc3\\xb6rder\\x0a");
  // A long text with a two-byte character right at the column's limit: cut before it, whole
  // escapes only, never more than the column holds (before: cut inside the character, which a
  // utf8mb4 column refuses, so the failure could never be recorded).
  const std::string long_text = std::string(kMaxLastErrorLength - 1, 'e') + "\xc3\xa9" + "tail";
  const std::string stored = storable_error(long_text);
  CHECK(stored.size() <= kMaxLastErrorLength);
  CHECK(stored == std::string(kMaxLastErrorLength - 1, 'e'));
  for (const char c : storable_error(std::string(2000, '\xff')))
    CHECK((c >= 0x20 && c < 0x7f));
}

TEST_CASE("statements name the configured table, quoted, and scans read the message columns",
          "[sql]") {
  using outbox::Ordering;
  using outbox::SqlIdentifier;
  const lease_sql::Schema schema(
      SqlIdentifier::parse("billing_outbox").value(),
      {SqlIdentifier::parse("tenant_id").value(), SqlIdentifier::parse("traceparent").value()});
  const std::string pending = lease_sql::select_pending(schema, Ordering::kPerAggregate);
  CHECK(pending.find(", e.lease_owner, e.lease_expiries, e.`tenant_id`, e.`traceparent` FROM "
                     "`billing_outbox` e FORCE INDEX (idx_outbox_pending)") != std::string::npos);
  // The ordering subquery reads the same table.
  CHECK(pending.find("FROM `billing_outbox` o FORCE INDEX (idx_outbox_aggregate)") !=
        std::string::npos);
  CHECK(pending.find("outbox_event") == std::string::npos);
  for (size_t capacity : lease_sql::kIdListCapacities) {
    for (const std::string& statement :
         {lease_sql::mark_published(schema, capacity), lease_sql::lease_rows(schema, capacity),
          lease_sql::release(schema, capacity), lease_sql::select_wakeable(schema, capacity),
          lease_sql::record_retriable_failure(schema, capacity),
          lease_sql::park_blocked(schema, capacity), lease_sql::fail_unsettled(schema, capacity),
          lease_sql::select_payloads(schema, capacity), lease_sql::any_blocked(schema)}) {
      INFO(statement);
      CHECK(statement.find("`billing_outbox`") != std::string::npos);
      CHECK(statement.find("outbox_event") == std::string::npos);
    }
  }
  // Every scan reads the same columns, so the message columns start at one known position.
  for (const std::string& scan : {lease_sql::select_pending(schema, Ordering::kNone),
                                  lease_sql::select_expired(schema, Ordering::kNone),
                                  lease_sql::select_retry_due(schema, Ordering::kNone)}) {
    CHECK(scan.find(std::string(lease_sql::kEventColumns) +
                    ", 0, e.lease_owner, e.lease_expiries, e.`tenant_id`, e.`traceparent` FROM ") !=
          std::string::npos);
  }
  CHECK(lease_sql::ScanColumn::kFirstMessageColumn == 12);
}

TEST_CASE("a table or column name must be a plain identifier", "[sql][config]") {
  using outbox::identifier_problem;
  CHECK_FALSE(identifier_problem("outbox_event"));
  CHECK_FALSE(identifier_problem("_Outbox2"));
  CHECK_FALSE(identifier_problem(std::string(64, 'a')));
  CHECK(identifier_problem("") == "must not be empty");
  CHECK(identifier_problem(std::string(65, 'a')) ==
        "\"" + std::string(65, 'a') + "\" is 65 characters long (at most 64)");
  CHECK(identifier_problem("2fast") == "\"2fast\" must start with a letter or '_'");
  CHECK(identifier_problem("outbox`; DROP TABLE x") ==
        "\"outbox`; DROP TABLE x\" may hold only letters, digits and '_' (a plain identifier), "
        "not '`'");
  CHECK(identifier_problem("db.outbox") ==
        "\"db.outbox\" may hold only letters, digits and '_' (a plain identifier), not '.'");
  CHECK(outbox::SqlIdentifier::parse("outbox_event").value().quoted() == "`outbox_event`");
}
