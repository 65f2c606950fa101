#pragma once

#include <array>
#include <cstddef>
#include <string>

namespace outbox {

// relay.ordering: whether a claim may take an event while an older one of its aggregate is
// still unpublished.
enum class Ordering {
  kNone,          // any claimable row; fastest
  kPerAggregate,  // an aggregate's events reach Kafka in event_version order
};

}  // namespace outbox

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

// Column list shared by the claim scans; its order is what the store reads. Every scan adds a
// `blocked` column (1 when, in per-aggregate mode, an older event of the row's aggregate is
// still unpublished; always 0 without ordering), and some a last column after it.
inline constexpr const char* kEventColumns =
    "e.event_id, e.aggregate_type, e.aggregate_id, e.event_type, e.event_version, e.payload, "
    "TIMESTAMPDIFF(MICROSECOND, e.created_at, CURRENT_TIMESTAMP(6)), e.attempts";

// PENDING rows, oldest first, read in the order of idx_outbox_pending (no sort), skipping
// rows another relay is claiming right now. Param: limit.
std::string select_pending(Ordering ordering);

// PUBLISHING rows whose lease ended before the database's now, along idx_outbox_due.
// Param: limit. Last column: the previous lease owner.
std::string select_expired(Ordering ordering);

// RETRY rows whose backoff is over, along idx_outbox_due. Param: limit.
std::string select_retry_due(Ordering ordering);

// BLOCKED rows due for their safety-net recheck, along idx_outbox_due: (event_id, blocked).
// Param: limit.
std::string select_blocked_due(Ordering ordering);

// Parks rows that must wait for an older event of their aggregate: BLOCKED, out of the PENDING
// range (so claims never read them again), with a recheck time that grows with the row's age
// (age / 10, between min and max). Params: recheck max us, recheck min us, ids[capacity].
std::string park_blocked(size_t capacity);

// BLOCKED -> PENDING. Params: ids[capacity].
std::string wake_blocked(size_t capacity);

// The BLOCKED rows of the given rows' aggregates that nothing holds back any more: the rows
// to wake after those rows were published (or parked). Params: ids[capacity].
std::string select_wakeable(size_t capacity);

// Leases the locked rows to one claim until database now + lease; next_attempt_at follows the
// lease (it is when another relay may take the row over). Params: owner, lease us, lease us,
// ids[capacity].
std::string lease_rows(size_t capacity);

// Confirmed deliveries: PUBLISHING -> PUBLISHED, only while the lease is still ours.
// Params: owner (published_by), ids[capacity], owner (lease condition).
std::string mark_published(size_t capacity);

// Which of the ids this owner marked (to name lease-lost ids). Params: ids[capacity], owner.
std::string select_marked_by(size_t capacity);

// Rows the relay gave up on for reasons of its own (drain deadline, producer replaced) go
// back to PENDING without counting an attempt. Params: ids[capacity], owner.
std::string release(size_t capacity);

// Which of the ids are PENDING and unleased after a release. Params: ids[capacity].
std::string select_released(size_t capacity);

// Which of the ids this owner still holds, locked for the failure update that follows (once
// that update has run, a row's lease no longer says whose it was). Params: ids[capacity],
// owner.
std::string select_held_by(size_t capacity);

// A retriable publish failure: attempts + 1, then RETRY with exponential backoff and jitter
// (min(max, initial * 2^attempts) scaled by a random factor in [0.5, 1), on the database
// clock), or FAILED once attempts reaches max_attempts. Params: max_attempts, max_attempts,
// backoff max us, backoff initial us, last_error, ids[capacity], owner.
std::string record_retriable_failure(size_t capacity);

// A permanent publish failure: FAILED at once. Params: last_error, ids[capacity], owner.
std::string record_permanent_failure(size_t capacity);

}  // namespace outbox::claim_sql
