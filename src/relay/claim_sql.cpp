#include "claim_sql.hpp"

#include <stdexcept>

namespace outbox::claim_sql {
namespace {

// 1 when an older event of the aggregate of row `alias` is still unpublished. "Older" is a
// smaller (event_version, created_at, event_id); unpublished is any status but PUBLISHED and
// SKIPPED. For each such status one probe reads the first entry of (aggregate, status) in
// idx_outbox_aggregate, which is that status's oldest event of the aggregate, and compares it
// with the row: one index entry per probe, whatever the aggregate's history or queue length.
// (An equality on status is what lets the probe use the index; a probe that finds nothing
// yields NULL, which COALESCE turns into "not older".) The probes are plain consistent reads
// (a locking clause on the outer SELECT does not lock rows read by its subqueries), so a row
// another relay has locked right now still counts: SKIP LOCKED cannot hide an older event.
std::string older_unpublished_exists(const std::string& alias) {
  std::string out = "(";
  for (const char* status : {"PENDING", "PUBLISHING", "RETRY", "FAILED", "BLOCKED"}) {
    if (out.size() > 1) out += " OR ";
    out +=
        "COALESCE((SELECT o.event_version, o.created_at, o.event_id FROM outbox_event o"
        " FORCE INDEX (idx_outbox_aggregate) WHERE o.aggregate_type = " +
        alias + ".aggregate_type AND o.aggregate_id = " + alias + ".aggregate_id AND o.status = '" +
        status + "' ORDER BY o.event_version, o.created_at, o.event_id LIMIT 1) < (" + alias +
        ".event_version, " + alias + ".created_at, " + alias + ".event_id), 0)";
  }
  return out + ")";
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

std::string select_pending(Ordering ordering) {
  return claim_scan(ordering, "", "idx_outbox_pending", "e.status = 'PENDING'",
                    "e.created_at, e.event_id");
}

std::string select_expired(Ordering ordering) {
  return claim_scan(ordering, ", e.lease_owner", "idx_outbox_due",
                    "e.status = 'PUBLISHING' AND e.next_attempt_at < CURRENT_TIMESTAMP(6)",
                    "e.next_attempt_at");
}

std::string select_retry_due(Ordering ordering) {
  return claim_scan(ordering, "", "idx_outbox_due",
                    "e.status = 'RETRY' AND e.next_attempt_at <= CURRENT_TIMESTAMP(6)",
                    "e.next_attempt_at");
}

std::string select_blocked_due(Ordering ordering) {
  return "SELECT e.event_id, " + blocked_column(ordering) +
         " FROM outbox_event e FORCE INDEX (idx_outbox_due)"
         " WHERE e.status = 'BLOCKED' AND e.next_attempt_at <= CURRENT_TIMESTAMP(6)"
         " ORDER BY e.next_attempt_at LIMIT ? FOR UPDATE SKIP LOCKED";
}

std::string park_blocked(size_t capacity) {
  return "UPDATE outbox_event"
         " SET status = 'BLOCKED', lease_owner = NULL, lease_until = NULL,"
         " next_attempt_at = CURRENT_TIMESTAMP(6) + INTERVAL LEAST(?, GREATEST(?,"
         " TIMESTAMPDIFF(MICROSECOND, created_at, CURRENT_TIMESTAMP(6)) DIV 10)) MICROSECOND"
         " WHERE event_id IN (" +
         placeholders(capacity) + ")";
}

std::string wake_blocked(size_t capacity) {
  return "UPDATE outbox_event SET status = 'PENDING', next_attempt_at = NULL"
         " WHERE event_id IN (" +
         placeholders(capacity) + ") AND status = 'BLOCKED'";
}

std::string select_wakeable(size_t capacity) {
  // Only the oldest BLOCKED event of each aggregate can be free (the others wait at least for
  // it), so one index entry per aggregate is examined, not its whole queue.
  return "SELECT DISTINCT b.event_id FROM (SELECT (SELECT f.event_id FROM outbox_event f"
         " FORCE INDEX (idx_outbox_aggregate) WHERE f.aggregate_type = m.aggregate_type AND"
         " f.aggregate_id = m.aggregate_id AND f.status = 'BLOCKED'"
         " ORDER BY f.event_version, f.created_at, f.event_id LIMIT 1) AS first_blocked"
         " FROM outbox_event m WHERE m.event_id IN (" +
         placeholders(capacity) +
         ")) heads JOIN outbox_event b ON b.event_id = heads.first_blocked WHERE NOT " +
         older_unpublished_exists("b");
}

std::string lease_rows(size_t capacity) {
  return "UPDATE outbox_event"
         " SET status = 'PUBLISHING', lease_owner = ?,"
         " lease_until = CURRENT_TIMESTAMP(6) + INTERVAL ? MICROSECOND,"
         " next_attempt_at = CURRENT_TIMESTAMP(6) + INTERVAL ? MICROSECOND"
         " WHERE event_id IN (" +
         placeholders(capacity) + ")";
}

std::string mark_published(size_t capacity) {
  return "UPDATE outbox_event"
         " SET status = 'PUBLISHED', published_at = CURRENT_TIMESTAMP(6), published_by = ?,"
         " lease_owner = NULL, lease_until = NULL, next_attempt_at = NULL"
         " WHERE event_id IN (" +
         placeholders(capacity) + ") AND status = 'PUBLISHING' AND lease_owner = ?";
}

std::string select_marked_by(size_t capacity) {
  return "SELECT event_id FROM outbox_event WHERE event_id IN (" + placeholders(capacity) +
         ") AND status = 'PUBLISHED' AND published_by = ?";
}

std::string release(size_t capacity) {
  return "UPDATE outbox_event"
         " SET status = 'PENDING', lease_owner = NULL, lease_until = NULL, next_attempt_at = NULL"
         " WHERE event_id IN (" +
         placeholders(capacity) + ") AND status = 'PUBLISHING' AND lease_owner = ?";
}

std::string select_released(size_t capacity) {
  return "SELECT event_id FROM outbox_event WHERE event_id IN (" + placeholders(capacity) +
         ") AND status = 'PENDING' AND lease_owner IS NULL";
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

std::string record_permanent_failure(size_t capacity) {
  return "UPDATE outbox_event"
         " SET status = 'FAILED', next_attempt_at = NULL, attempts = attempts + 1,"
         " last_error = ?, lease_owner = NULL, lease_until = NULL"
         " WHERE event_id IN (" +
         placeholders(capacity) + ") AND status = 'PUBLISHING' AND lease_owner = ?";
}

}  // namespace outbox::claim_sql
