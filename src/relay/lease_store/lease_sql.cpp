#include "lease_store/lease_sql.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace outbox::lease_sql {
namespace {

// The oldest event of the aggregate of row `alias` that is still to publish, as the row
// (event_version, created_at, event_id): the first entry of idx_outbox_aggregate for
// (aggregate, unpublished = 1), one index entry whatever the aggregate's history or queue.
// "Older" thus means a smaller (event_version, created_at, event_id). The read is a plain
// consistent read (a locking clause on the outer SELECT does not lock rows read by its
// subqueries), so a row another relay has locked right now still counts: SKIP LOCKED cannot
// hide an older event.
//
// The ORDER BY names the index's whole equality prefix, which changes no result: MySQL 9.7
// reads the range in index order only then. With the outer row's columns as the equality
// values it otherwise sorted the aggregate's unpublished range for every row a claim scan read
// ("Using filesort"), so a hot aggregate's backlog made each of its rows cost that backlog.
std::string oldest_unpublished(const Schema& schema, const std::string& columns,
                               const std::string& alias) {
  return "(SELECT " + columns + " FROM " + schema.table() +
         " o FORCE INDEX (idx_outbox_aggregate)"
         " WHERE o.aggregate_type = " +
         alias + ".aggregate_type AND o.aggregate_id = " + alias +
         ".aggregate_id AND o.unpublished = 1"
         " ORDER BY o.aggregate_type, o.aggregate_id, o.unpublished, o.event_version,"
         " o.created_at, o.event_id LIMIT 1)";
}

// Whether the oldest unpublished event of the aggregate of row `alias` is older than the row:
// 1 when an older event is still unpublished, 0 when the row is the oldest (the row itself is
// unpublished, so the oldest is either the row or older), NULL when the subquery finds no
// unpublished event at all.
//
// NULL means the row is newer than the statement's snapshot. The subquery reads that snapshot,
// the locking scan around it the newest committed rows: a row committed after the snapshot
// was taken is seen by the scan but not by the subquery, nor is an older version committed
// with it or just before it. Taken as a head, a version pair committed while a claim scans
// was claimed as two heads (claim_race_test.cpp: 11 of 4,000 pairs with two relays).
std::string oldest_is_older(const Schema& schema, const std::string& alias) {
  return oldest_unpublished(schema, "o.event_version, o.created_at, o.event_id", alias) + " < (" +
         alias + ".event_version, " + alias + ".created_at, " + alias + ".event_id)";
}

// 1 when an older event of the aggregate of row `alias` is still unpublished, or when that
// cannot be told yet (a row newer than the snapshot): such a row stays where it is.
std::string older_unpublished_exists(const Schema& schema, const std::string& alias) {
  return "COALESCE(" + oldest_is_older(schema, alias) + ", 1)";
}

std::string blocked_column(const Schema& schema, Ordering ordering) {
  return ordering == Ordering::kPerAggregate ? older_unpublished_exists(schema, "e") : "0";
}

// What a claim scan does with row `e` (ScanColumn::kClaimState): kClaimable when no older
// event of its aggregate is unpublished; kWaiting when the oldest unpublished one is in
// flight (PUBLISHING under a live lease, so it settles within that lease); kBlocked
// otherwise. The first test reads idx_outbox_aggregate alone (it covers those columns); only
// a row behind an older event pays for the second, which reads that event's row for its status
// and lease (CASE evaluates its operand once and only the branch it takes). A row newer than
// the statement's snapshot (see oldest_is_older) is kNewerThanSnapshot: left for the next
// claim, whose snapshot holds it.
//
// With chains, a claimable row also reads whether its aggregate has another unpublished event
// (the next entry of the same index range, one more entry read): only such a head is worth a
// select_chain round trip, so a backlog of one event per aggregate pays no query per head.
std::string claim_state_column(const Schema& schema, Ordering ordering, bool chains) {
  if (ordering != Ordering::kPerAggregate) return std::to_string(ClaimState::kClaimable);
  const std::string claimable =
      chains ? "IF(EXISTS(SELECT 1 FROM " + schema.table() +
                   " n FORCE INDEX (idx_outbox_aggregate)"
                   " WHERE n.aggregate_type = e.aggregate_type AND n.aggregate_id = "
                   "e.aggregate_id AND n.unpublished = 1 AND n.event_id <> e.event_id), " +
                   std::to_string(ClaimState::kClaimableHead) + ", " +
                   std::to_string(ClaimState::kClaimable) + ")"
             : std::to_string(ClaimState::kClaimable);
  const std::string blocked = std::to_string(ClaimState::kBlocked);
  const std::string head_state =
      "IF(o.status = 'PUBLISHING' AND o.lease_until > CURRENT_TIMESTAMP(6), " +
      std::to_string(ClaimState::kWaiting) + ", " + blocked + ")";
  return "CASE " + oldest_is_older(schema, "e") + " WHEN 0 THEN " + claimable +
         " WHEN 1 THEN COALESCE(" + oldest_unpublished(schema, head_state, "e") + ", " + blocked +
         ") ELSE " + std::to_string(ClaimState::kNewerThanSnapshot) + " END";
}

std::string message_column_list(const Schema& schema) {
  std::string message_columns;
  for (size_t i = 0; i < schema.message_columns().size(); ++i)
    message_columns += ", " + schema.message_column_expression(i);
  return message_columns;
}

// Every scan reads the same columns (ScanColumn), so the message columns always start at
// ScanColumn::kFirstMessageColumn.
std::string claim_scan(const Schema& schema, Ordering ordering, bool chains, const char* index,
                       const char* condition, const char* order) {
  return std::string("SELECT ") + kEventColumns + ", " +
         claim_state_column(schema, ordering, chains) + ", e.lease_owner, e.lease_expiries" +
         message_column_list(schema) + " FROM " + schema.table() + " e FORCE INDEX (" + index +
         ") WHERE " + condition + " ORDER BY " + order + " LIMIT ? FOR UPDATE SKIP LOCKED";
}

}  // namespace

Schema::Schema()
    : table_name_(kDefaultOutboxTable), table_(std::string("`") + kDefaultOutboxTable + "`") {}

Schema::Schema(const SqlIdentifier& table, const std::vector<SqlIdentifier>& message_columns)
    : table_name_(table.name()), table_(table.quoted()) {
  for (const SqlIdentifier& column : message_columns) {
    message_columns_.push_back(column.quoted());
    message_column_names_.push_back(column.name());
    message_column_json_.push_back(false);
  }
}

namespace {

bool same_identifier(const std::string& a, const std::string& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](unsigned char x, unsigned char y) {
    return std::tolower(x) == std::tolower(y);
  });
}

bool names_column(const std::vector<std::string>& names, const std::string& name) {
  return std::any_of(names.begin(), names.end(),
                     [&](const std::string& entry) { return same_identifier(entry, name); });
}

}  // namespace

void Schema::read_json_as_text(const std::vector<std::string>& json_columns) {
  payload_expression_ = names_column(json_columns, "payload")
                            ? "CAST(payload AS CHAR CHARACTER SET utf8mb4)"
                            : "payload";
  for (size_t i = 0; i < message_column_names_.size(); ++i)
    message_column_json_[i] = names_column(json_columns, message_column_names_[i]);
}

std::string Schema::message_column_expression(size_t i) const {
  // Appended, not "literal" + string: GCC 12 warns of an overlapping memcpy there (-Wrestrict,
  // GCC bug 105329).
  std::string expression = message_column_json_.at(i) ? "CAST(e." : "e.";
  expression += message_columns_.at(i);
  if (message_column_json_.at(i)) expression += " AS CHAR CHARACTER SET utf8mb4)";
  return expression;
}

size_t id_list_capacity(size_t n) {
  for (size_t capacity : kIdListCapacities) {
    if (n <= capacity) return capacity;
  }
  throw std::logic_error("id list of " + std::to_string(n) + " exceeds " +
                         std::to_string(kMaxIdList) + ": callers must chunk");
}

std::string placeholders(size_t n) {
  std::string out = "?";
  out.reserve(n * 3);
  for (size_t i = 1; i < n; ++i)
    out += ", ?";
  return out;
}

void Parameters::ids(const IdChunk& chunk) {
  for (size_t i = 0; i < chunk.capacity; ++i)
    text(chunk.ids[chunk.begin + std::min(i, chunk.count - 1)]);
}

void ScanLimit::bind(Parameters& out) const {
  out.count(limit);
}

std::string select_pending(const Schema& schema, Ordering ordering, bool chains) {
  return claim_scan(schema, ordering, chains, "idx_outbox_pending", "e.status = 'PENDING'",
                    "e.created_at, e.event_id");
}

std::string select_expired(const Schema& schema, Ordering ordering, bool chains) {
  return claim_scan(schema, ordering, chains, "idx_outbox_due",
                    "e.status = 'PUBLISHING' AND e.next_attempt_at < CURRENT_TIMESTAMP(6)",
                    "e.next_attempt_at");
}

std::string select_retry_due(const Schema& schema, Ordering ordering, bool chains) {
  return claim_scan(schema, ordering, chains, "idx_outbox_due",
                    "e.status = 'RETRY' AND e.next_attempt_at <= CURRENT_TIMESTAMP(6)",
                    "e.next_attempt_at");
}

std::string select_chain(const Schema& schema) {
  return std::string("SELECT ") + kEventColumns + ", IF(e.status = 'PENDING', " +
         std::to_string(ClaimState::kClaimable) + ", " + std::to_string(ClaimState::kBlocked) +
         "), e.lease_owner, e.lease_expiries" + message_column_list(schema) + " FROM " +
         schema.table() +
         " e FORCE INDEX (idx_outbox_aggregate)"
         " WHERE e.aggregate_type = ? AND e.aggregate_id = ? AND e.unpublished = 1"
         " ORDER BY e.event_version, e.created_at, e.event_id LIMIT ? FOR UPDATE NOWAIT";
}

void SelectChain::bind(Parameters& out) const {
  out.text(aggregate_type);
  out.text(aggregate_id);
  out.count(limit);
}

std::string select_blocked_due(const Schema& schema, Ordering ordering) {
  // The blocker is the aggregate's oldest unpublished event: whether it is FAILED decides
  // between a recheck later and none.
  const std::string blocked_by_failed =
      ordering == Ordering::kPerAggregate
          ? "COALESCE(" + oldest_unpublished(schema, "o.status", "e") + " = 'FAILED', 0)"
          : std::string("0");
  return "SELECT e.event_id, " + blocked_column(schema, ordering) + ", " + blocked_by_failed +
         " FROM " + schema.table() +
         " e FORCE INDEX (idx_outbox_due)"
         " WHERE e.status = 'BLOCKED' AND e.next_attempt_at <= CURRENT_TIMESTAMP(6)"
         " ORDER BY e.next_attempt_at LIMIT ? FOR UPDATE SKIP LOCKED";
}

std::string select_payloads(const Schema& schema, size_t capacity) {
  return "SELECT event_id, " + schema.payload_expression() + " FROM " + schema.table() +
         " WHERE event_id IN (" + placeholders(capacity) + ")";
}

void SelectPayloads::bind(Parameters& out, const IdChunk& ids) const {
  out.ids(ids);
}

std::string park_blocked(const Schema& schema, size_t capacity) {
  return "UPDATE " + schema.table() +
         " SET status = 'BLOCKED', lease_owner = NULL, lease_until = NULL,"
         " next_attempt_at = CURRENT_TIMESTAMP(6) + INTERVAL LEAST(?, GREATEST(?,"
         " TIMESTAMPDIFF(MICROSECOND, created_at, CURRENT_TIMESTAMP(6)) DIV 10)) MICROSECOND"
         " WHERE event_id IN (" +
         placeholders(capacity) + ")";
}

void ParkBlocked::bind(Parameters& out, const IdChunk& ids) const {
  out.integer(recheck_max.count());
  out.integer(recheck_min.count());
  out.ids(ids);
}

std::string park_behind_failed(const Schema& schema, size_t capacity) {
  // Decided again here, from the rows as they are now, not from the due scan's snapshot: an
  // operator's requeue or skip committed in between would otherwise leave the row without a
  // recheck behind a head that is no longer FAILED, and a lost wake would strand it for good.
  // The join's read of the FAILED row is a locking one (the latest committed version; a
  // requeue or skip still running is waited for, and its own recheck then finds this row).
  // Any older FAILED event of the aggregate will do: the row cannot move before it either.
  return "UPDATE " + schema.table() + " b JOIN " + schema.table() +
         " f FORCE INDEX (idx_outbox_aggregate)"
         " ON f.aggregate_type = b.aggregate_type AND f.aggregate_id = b.aggregate_id"
         " AND f.unpublished = 1 AND f.status = 'FAILED'"
         " AND (f.event_version, f.created_at, f.event_id) <"
         " (b.event_version, b.created_at, b.event_id)"
         " SET b.next_attempt_at = NULL WHERE b.event_id IN (" +
         placeholders(capacity) + ") AND b.status = 'BLOCKED'";
}

void ParkBehindFailed::bind(Parameters& out, const IdChunk& ids) const {
  out.ids(ids);
}

std::string count_lease_expiry(const Schema& schema, size_t capacity) {
  return "UPDATE " + schema.table() +
         " SET lease_expiries = lease_expiries + 1 WHERE event_id IN (" + placeholders(capacity) +
         ")";
}

void CountLeaseExpiry::bind(Parameters& out, const IdChunk& ids) const {
  out.ids(ids);
}

std::string fail_unsettled(const Schema& schema, size_t capacity) {
  return "UPDATE " + schema.table() +
         " SET status = 'FAILED', lease_expiries = lease_expiries + 1,"
         " last_error = LEFT(CONCAT(?, COALESCE(last_error, 'none')), 1024),"
         " lease_owner = NULL, lease_until = NULL, next_attempt_at = NULL"
         " WHERE event_id IN (" +
         placeholders(capacity) + ") AND status = 'PUBLISHING'";
}

void FailUnsettled::bind(Parameters& out, const IdChunk& ids) const {
  out.text(reason);
  out.ids(ids);
}

std::string wake_blocked(const Schema& schema, size_t capacity) {
  return "UPDATE " + schema.table() +
         " SET status = 'PENDING', next_attempt_at = NULL"
         " WHERE event_id IN (" +
         placeholders(capacity) + ") AND status = 'BLOCKED'";
}

void WakeBlocked::bind(Parameters& out, const IdChunk& ids) const {
  out.ids(ids);
}

std::string wake_deferred(const Schema& schema, size_t capacity) {
  // Only RETRY rows are moved: a row published, parked or claimed meanwhile stays as it is. A
  // NULL recheck is an operator's hold (record_hold).
  return "UPDATE " + schema.table() +
         " SET next_attempt_at = CURRENT_TIMESTAMP(6)"
         " WHERE event_id IN (" +
         placeholders(capacity) +
         ") AND status = 'RETRY' AND (next_attempt_at IS NULL OR next_attempt_at > "
         "CURRENT_TIMESTAMP(6))";
}

void WakeDeferred::bind(Parameters& out, const IdChunk& ids) const {
  out.ids(ids);
}

std::string any_blocked(const Schema& schema) {
  return std::string("SELECT 1 FROM ") + schema.table() +
         " FORCE INDEX (idx_outbox_due) WHERE status = 'BLOCKED' LIMIT 1";
}

std::string select_wakeable(const Schema& schema, size_t capacity) {
  // The next event of each given row's aggregate is its oldest unpublished one; it is to wake
  // exactly when it is BLOCKED. One index entry per aggregate.
  return "SELECT DISTINCT h.event_id, h.aggregate_type, h.aggregate_id FROM (SELECT " +
         oldest_unpublished(schema, "o.event_id", "m") + " AS head FROM " + schema.table() +
         " m WHERE m.event_id IN (" + placeholders(capacity) + ")) heads JOIN " + schema.table() +
         " h ON h.event_id = heads.head WHERE h.status = 'BLOCKED'";
}

void SelectWakeable::bind(Parameters& out, const IdChunk& ids) const {
  out.ids(ids);
}

std::string select_wake_chain(const Schema& schema) {
  // A plain consistent read, no locks: the wake's UPDATE changes only rows still BLOCKED.
  return "SELECT b.event_id, b.status FROM " + schema.table() +
         " b FORCE INDEX (idx_outbox_aggregate)"
         " WHERE b.aggregate_type = ? AND b.aggregate_id = ? AND b.unpublished = 1"
         " ORDER BY b.event_version, b.created_at, b.event_id LIMIT ?";
}

std::string lease_rows(const Schema& schema, size_t capacity) {
  return "UPDATE " + schema.table() +
         " SET status = 'PUBLISHING', lease_owner = ?,"
         " lease_until = CURRENT_TIMESTAMP(6) + INTERVAL ? MICROSECOND,"
         " next_attempt_at = CURRENT_TIMESTAMP(6) + INTERVAL ? MICROSECOND"
         " WHERE event_id IN (" +
         placeholders(capacity) + ")";
}

void LeaseRows::bind(Parameters& out, const IdChunk& ids) const {
  out.text(owner);
  out.integer(lease.count());  // lease_until
  out.integer(lease.count());  // next_attempt_at
  out.ids(ids);
}

std::string mark_published(const Schema& schema, size_t capacity) {
  return "UPDATE " + schema.table() +
         " SET status = 'PUBLISHED', published_at = CURRENT_TIMESTAMP(6), published_by = ?,"
         " lease_owner = NULL, lease_until = NULL, next_attempt_at = NULL"
         " WHERE event_id IN (" +
         placeholders(capacity) + ") AND status = 'PUBLISHING' AND lease_owner = ?";
}

void MarkPublished::bind(Parameters& out, const IdChunk& ids) const {
  out.text(owner);  // published_by
  out.ids(ids);
  out.text(owner);  // the lease condition
}

std::string select_marked_by(const Schema& schema, size_t capacity) {
  return "SELECT event_id FROM " + schema.table() + " WHERE event_id IN (" +
         placeholders(capacity) + ") AND status = 'PUBLISHED' AND published_by = ?";
}

void SelectMarkedBy::bind(Parameters& out, const IdChunk& ids) const {
  out.ids(ids);
  out.text(owner);
}

std::string release(const Schema& schema, size_t capacity) {
  return "UPDATE " + schema.table() +
         " SET status = 'PENDING', lease_owner = NULL, lease_until = NULL, next_attempt_at = NULL"
         " WHERE event_id IN (" +
         placeholders(capacity) + ") AND status = 'PUBLISHING' AND lease_owner = ?";
}

void Release::bind(Parameters& out, const IdChunk& ids) const {
  out.ids(ids);
  out.text(owner);
}

std::string select_released(const Schema& schema, size_t capacity) {
  return "SELECT event_id FROM " + schema.table() + " WHERE event_id IN (" +
         placeholders(capacity) + ") AND status = 'PENDING' AND lease_owner IS NULL";
}

void SelectReleased::bind(Parameters& out, const IdChunk& ids) const {
  out.ids(ids);
}

std::string record_retriable_failure(const Schema& schema, size_t capacity) {
  // Every right-hand side reads attempts before "attempts = attempts + 1" is assigned (it is
  // the last assignment that uses it), so MySQL's left-to-right assignment and MariaDB's
  // SIMULTANEOUS_ASSIGNMENT mode give the same result.
  return "UPDATE " + schema.table() +
         " SET status = IF(attempts + 1 >= ?, 'FAILED', 'RETRY'),"
         " next_attempt_at = IF(attempts + 1 >= ?, NULL, CURRENT_TIMESTAMP(6) + INTERVAL"
         " FLOOR(LEAST(?, ? * POW(2, LEAST(attempts, 60))) * (0.5 + RAND() / 2)) MICROSECOND),"
         " attempts = attempts + 1, last_error = ?, lease_owner = NULL, lease_until = NULL"
         " WHERE event_id IN (" +
         placeholders(capacity) + ") AND status = 'PUBLISHING' AND lease_owner = ?";
}

void RecordRetriableFailure::bind(Parameters& out, const IdChunk& ids) const {
  out.integer(max_attempts);  // status
  out.integer(max_attempts);  // next_attempt_at
  out.integer(backoff_max.count());
  out.integer(backoff_initial.count());
  out.text(last_error);
  out.ids(ids);
  out.text(owner);
}

std::string select_held_by(const Schema& schema, size_t capacity) {
  return "SELECT event_id FROM " + schema.table() + " WHERE event_id IN (" +
         placeholders(capacity) + ") AND status = 'PUBLISHING' AND lease_owner = ? FOR UPDATE";
}

void SelectHeldBy::bind(Parameters& out, const IdChunk& ids) const {
  out.ids(ids);
  out.text(owner);
}

std::string record_deferral(const Schema& schema, size_t capacity) {
  return "UPDATE " + schema.table() +
         " SET status = 'RETRY', next_attempt_at = CURRENT_TIMESTAMP(6) + INTERVAL ? MICROSECOND,"
         " last_error = ?, lease_owner = NULL, lease_until = NULL"
         " WHERE event_id IN (" +
         placeholders(capacity) + ") AND status = 'PUBLISHING' AND lease_owner = ?";
}

void RecordDeferral::bind(Parameters& out, const IdChunk& ids) const {
  out.integer(delay.count());
  out.text(last_error);
  out.ids(ids);
  out.text(owner);
}

std::string record_hold(const Schema& schema, size_t capacity) {
  return "UPDATE " + schema.table() +
         " SET status = 'RETRY', next_attempt_at = NULL, last_error = ?, lease_owner = NULL,"
         " lease_until = NULL WHERE event_id IN (" +
         placeholders(capacity) + ") AND status = 'PUBLISHING' AND lease_owner = ?";
}

void RecordHold::bind(Parameters& out, const IdChunk& ids) const {
  out.text(last_error);
  out.ids(ids);
  out.text(owner);
}

std::string record_permanent_failure(const Schema& schema, size_t capacity) {
  return "UPDATE " + schema.table() +
         " SET status = 'FAILED', next_attempt_at = NULL, attempts = attempts + 1,"
         " last_error = ?, lease_owner = NULL, lease_until = NULL"
         " WHERE event_id IN (" +
         placeholders(capacity) + ") AND status = 'PUBLISHING' AND lease_owner = ?";
}

void RecordPermanentFailure::bind(Parameters& out, const IdChunk& ids) const {
  out.text(last_error);
  out.ids(ids);
  out.text(owner);
}

}  // namespace outbox::lease_sql
