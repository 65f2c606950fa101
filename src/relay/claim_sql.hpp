#pragma once

#include <array>
#include <cstddef>
#include <string>

namespace outbox::claim_sql {

// Statements that take a list of event ids are prepared for a few fixed list sizes, never
// built per call: a list of n ids runs the smallest capacity >= n, padded by repeating its
// last id (a repeated id matches the same row and changes nothing more). This bounds the
// number of distinct prepared statements and never produces an empty IN ().
inline constexpr std::array<size_t, 6> kIdListCapacities{1, 4, 16, 64, 256, 1024};
inline constexpr size_t kMaxIdList = kIdListCapacities.back();

// The smallest capacity that holds n ids (1 <= n <= kMaxIdList).
size_t id_list_capacity(size_t n);

// "?, ?, ?" with n placeholders (n >= 1).
std::string placeholders(size_t n);

// Column list shared by both claim scans; its order is what read_event() expects.
inline constexpr const char* kEventColumns =
    "event_id, aggregate_type, aggregate_id, event_type, event_version, payload, "
    "TIMESTAMPDIFF(MICROSECOND, created_at, CURRENT_TIMESTAMP(6))";

// PENDING rows, oldest first, read in the order of idx_outbox_pending (no sort), skipping
// rows another relay is claiming right now. Param: limit.
std::string select_pending();

// Leases that ended before the database's now, read along idx_outbox_lease. Params: limit.
// Also returns the previous owner (last column) for the reclaim log.
std::string select_expired();

// Leases the locked rows to one claim. Params: owner, lease in microseconds, ids[capacity].
std::string lease_rows(size_t capacity);

// Confirmed deliveries: PUBLISHING -> PUBLISHED, only while the lease is still ours.
// Params: owner (published_by), ids[capacity], owner (lease condition).
std::string mark_published(size_t capacity);

// Which of the ids this owner marked (to name lease-lost ids). Params: ids[capacity], owner.
std::string select_marked_by(size_t capacity);

// Unconfirmed deliveries go back to PENDING, only while the lease is still ours.
// Params: ids[capacity], owner.
std::string release(size_t capacity);

// Which of the ids are PENDING and unleased after a release. Params: ids[capacity].
std::string select_released(size_t capacity);

}  // namespace outbox::claim_sql
