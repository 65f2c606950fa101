#include "claim_sql.hpp"

#include <algorithm>
#include <stdexcept>

namespace outbox::claim_sql {
namespace {

// The oldest event of the aggregate of row `alias` that is still to publish, as the row
// (event_version, created_at, event_id): the first entry of idx_outbox_aggregate for
// (aggregate, unpublished = 1), one index entry whatever the aggregate's history or queue.
// "Older" thus means a smaller (event_version, created_at, event_id). The read is a plain
// consistent read (a locking clause on the outer SELECT does not lock rows read by its
// subqueries), so a row another relay has locked right now still counts: SKIP LOCKED cannot
// hide an older event.
std::string oldest_unpublished(const std::string& columns, const std::string& alias) {
  return "(SELECT " + columns +
         " FROM outbox_event o FORCE INDEX (idx_outbox_aggregate)"
         " WHERE o.aggregate_type = " +
         alias + ".aggregate_type AND o.aggregate_id = " + alias +
         ".aggregate_id AND o.unpublished = 1"
         " ORDER BY o.event_version, o.created_at, o.event_id LIMIT 1)";
}

// 1 when an older event of the aggregate of row `alias` is still unpublished (the row itself
// is unpublished, so the oldest is either the row or older). No unpublished event at all
// yields NULL, which COALESCE turns into 0.
std::string older_unpublished_exists(const std::string& alias) {
  return "COALESCE(" + oldest_unpublished("o.event_version, o.created_at, o.event_id", alias) +
         " < (" + alias + ".event_version, " + alias + ".created_at, " + alias + ".event_id), 0)";
}

std::string blocked_column(Ordering ordering) {
  return ordering == Ordering::kPerAggregate ? older_unpublished_exists("e") : "0";
}

std::string claim_scan(Ordering ordering, const char* extra_column, const char* index,
                       const char* condition, const char* order) {
  return std::string("SELECT ") + kEventColumns + ", " + blocked_column(ordering) + extra_column +
         " FROM outbox_event e FORCE INDEX (" + index + ") WHERE " + condition + " ORDER BY " +
         order + " LIMIT ? FOR UPDATE SKIP LOCKED";
}

}  // namespace

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

std::string select_pending(Ordering ordering) {
  return claim_scan(ordering, "", "idx_outbox_pending", "e.status = 'PENDING'",
                    "e.created_at, e.event_id");
}

std::string select_expired(Ordering ordering) {
  return claim_scan(ordering, ", e.lease_owner, e.lease_expiries", "idx_outbox_due",
                    "e.status = 'PUBLISHING' AND e.next_attempt_at < CURRENT_TIMESTAMP(6)",
                    "e.next_attempt_at");
}

std::string select_retry_due(Ordering ordering) {
  return claim_scan(ordering, "", "idx_outbox_due",
                    "e.status = 'RETRY' AND e.next_attempt_at <= CURRENT_TIMESTAMP(6)",
                    "e.next_attempt_at");
}

std::string select_blocked_due(Ordering ordering) {
  // The blocker is the aggregate's oldest unpublished event: whether it is FAILED decides
  // between a recheck later and none.
  const std::string blocked_by_failed =
      ordering == Ordering::kPerAggregate
          ? "COALESCE(" + oldest_unpublished("o.status", "e") + " = 'FAILED', 0)"
          : std::string("0");
  return "SELECT e.event_id, " + blocked_column(ordering) + ", " + blocked_by_failed +
         " FROM outbox_event e FORCE INDEX (idx_outbox_due)"
         " WHERE e.status = 'BLOCKED' AND e.next_attempt_at <= CURRENT_TIMESTAMP(6)"
         " ORDER BY e.next_attempt_at LIMIT ? FOR UPDATE SKIP LOCKED";
}

std::string select_payloads(size_t capacity) {
  return "SELECT event_id, payload FROM outbox_event WHERE event_id IN (" + placeholders(capacity) +
         ")";
}

void SelectPayloads::bind(Parameters& out, const IdChunk& ids) const {
  out.ids(ids);
}

std::string park_blocked(size_t capacity) {
  return "UPDATE outbox_event"
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

std::string park_behind_failed(size_t capacity) {
  return "UPDATE outbox_event SET next_attempt_at = NULL WHERE event_id IN (" +
         placeholders(capacity) + ") AND status = 'BLOCKED'";
}

void ParkBehindFailed::bind(Parameters& out, const IdChunk& ids) const {
  out.ids(ids);
}

std::string count_lease_expiry(size_t capacity) {
  return "UPDATE outbox_event SET lease_expiries = lease_expiries + 1 WHERE event_id IN (" +
         placeholders(capacity) + ")";
}

void CountLeaseExpiry::bind(Parameters& out, const IdChunk& ids) const {
  out.ids(ids);
}

std::string fail_unsettled(size_t capacity) {
  return "UPDATE outbox_event"
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

std::string wake_blocked(size_t capacity) {
  return "UPDATE outbox_event SET status = 'PENDING', next_attempt_at = NULL"
         " WHERE event_id IN (" +
         placeholders(capacity) + ") AND status = 'BLOCKED'";
}

void WakeBlocked::bind(Parameters& out, const IdChunk& ids) const {
  out.ids(ids);
}

std::string select_wakeable(size_t capacity) {
  // The next event of each given row's aggregate is its oldest unpublished one; it is to wake
  // exactly when it is BLOCKED. One index entry per aggregate.
  return "SELECT DISTINCT h.event_id FROM (SELECT " + oldest_unpublished("o.event_id", "m") +
         " AS head FROM outbox_event m WHERE m.event_id IN (" + placeholders(capacity) +
         ")) heads JOIN outbox_event h ON h.event_id = heads.head WHERE h.status = 'BLOCKED'";
}

void SelectWakeable::bind(Parameters& out, const IdChunk& ids) const {
  out.ids(ids);
}

std::string lease_rows(size_t capacity) {
  return "UPDATE outbox_event"
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

std::string mark_published(size_t capacity) {
  return "UPDATE outbox_event"
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

std::string select_marked_by(size_t capacity) {
  return "SELECT event_id FROM outbox_event WHERE event_id IN (" + placeholders(capacity) +
         ") AND status = 'PUBLISHED' AND published_by = ?";
}

void SelectMarkedBy::bind(Parameters& out, const IdChunk& ids) const {
  out.ids(ids);
  out.text(owner);
}

std::string release(size_t capacity) {
  return "UPDATE outbox_event"
         " SET status = 'PENDING', lease_owner = NULL, lease_until = NULL, next_attempt_at = NULL"
         " WHERE event_id IN (" +
         placeholders(capacity) + ") AND status = 'PUBLISHING' AND lease_owner = ?";
}

void Release::bind(Parameters& out, const IdChunk& ids) const {
  out.ids(ids);
  out.text(owner);
}

std::string select_released(size_t capacity) {
  return "SELECT event_id FROM outbox_event WHERE event_id IN (" + placeholders(capacity) +
         ") AND status = 'PENDING' AND lease_owner IS NULL";
}

void SelectReleased::bind(Parameters& out, const IdChunk& ids) const {
  out.ids(ids);
}

std::string record_retriable_failure(size_t capacity) {
  // Every right-hand side reads attempts before "attempts = attempts + 1" is assigned (it is
  // the last assignment that uses it), so MySQL's left-to-right assignment and MariaDB's
  // SIMULTANEOUS_ASSIGNMENT mode give the same result.
  return "UPDATE outbox_event"
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

std::string select_held_by(size_t capacity) {
  return "SELECT event_id FROM outbox_event WHERE event_id IN (" + placeholders(capacity) +
         ") AND status = 'PUBLISHING' AND lease_owner = ? FOR UPDATE";
}

void SelectHeldBy::bind(Parameters& out, const IdChunk& ids) const {
  out.ids(ids);
  out.text(owner);
}

std::string record_deferral(size_t capacity) {
  return "UPDATE outbox_event"
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

std::string record_permanent_failure(size_t capacity) {
  return "UPDATE outbox_event"
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

}  // namespace outbox::claim_sql
