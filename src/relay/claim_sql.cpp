#include "claim_sql.hpp"

#include <stdexcept>

namespace outbox::claim_sql {

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

std::string select_pending() {
  return std::string("SELECT ") + kEventColumns +
         " FROM outbox_event FORCE INDEX (idx_outbox_pending)"
         " WHERE status = 'PENDING'"
         " ORDER BY created_at, event_id"
         " LIMIT ?"
         " FOR UPDATE SKIP LOCKED";
}

std::string select_expired() {
  return std::string("SELECT ") + kEventColumns +
         ", lease_owner"
         " FROM outbox_event FORCE INDEX (idx_outbox_lease)"
         " WHERE status = 'PUBLISHING' AND lease_until < CURRENT_TIMESTAMP(6)"
         " ORDER BY lease_until"
         " LIMIT ?"
         " FOR UPDATE SKIP LOCKED";
}

std::string lease_rows(size_t capacity) {
  return "UPDATE outbox_event"
         " SET status = 'PUBLISHING', lease_owner = ?,"
         " lease_until = CURRENT_TIMESTAMP(6) + INTERVAL ? MICROSECOND"
         " WHERE event_id IN (" +
         placeholders(capacity) + ")";
}

std::string mark_published(size_t capacity) {
  return "UPDATE outbox_event"
         " SET status = 'PUBLISHED', published_at = CURRENT_TIMESTAMP(6), published_by = ?,"
         " lease_owner = NULL, lease_until = NULL"
         " WHERE event_id IN (" +
         placeholders(capacity) + ") AND status = 'PUBLISHING' AND lease_owner = ?";
}

std::string select_marked_by(size_t capacity) {
  return "SELECT event_id FROM outbox_event WHERE event_id IN (" + placeholders(capacity) +
         ") AND status = 'PUBLISHED' AND published_by = ?";
}

std::string release(size_t capacity) {
  return "UPDATE outbox_event"
         " SET status = 'PENDING', lease_owner = NULL, lease_until = NULL"
         " WHERE event_id IN (" +
         placeholders(capacity) + ") AND status = 'PUBLISHING' AND lease_owner = ?";
}

std::string select_released(size_t capacity) {
  return "SELECT event_id FROM outbox_event WHERE event_id IN (" + placeholders(capacity) +
         ") AND status = 'PENDING' AND lease_owner IS NULL";
}

}  // namespace outbox::claim_sql
