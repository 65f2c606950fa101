#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "config/duration.hpp"
#include "mysql/sql_identifier.hpp"

namespace outbox {

// relay.ordering: whether a claim may take an event while an older one of its aggregate is
// still unpublished.
enum class Ordering {
  kNone,          // any claimable row; fastest
  kPerAggregate,  // an aggregate's events reach Kafka in event_version order
};

}  // namespace outbox

namespace outbox::lease_sql {

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

// One run of an id-list statement: ids[begin, begin + count) in `capacity` placeholders.
struct IdChunk {
  const std::vector<std::string>& ids;
  size_t begin = 0;
  size_t count = 0;
  size_t capacity = 0;  // id_list_capacity(count)
};

// What every statement is built for: the outbox table (mysql.table) and the columns the claim
// scans read for the message beyond the fixed ones (kafka.key_column, kafka.headers,
// kafka.trace_context), both validated identifiers written quoted. A store runs on one schema,
// so the number of distinct statements (and prepared statements) stays bounded.
//
// What the server makes of a column's type is part of it too: MySQL stores a JSON column in a
// binary form and answers it with a type of its own (245) that Connector/C++ 1.1 cannot bind
// to a prepared statement's result ("allocate_buffer_for_field: invalid rbind data type"), so
// every JSON column the relay reads (the payload, a message column) is read as its text,
// CAST(column AS CHAR CHARACTER SET utf8mb4): MySQL's normalised rendering, not the bytes the
// writer sent. MariaDB's JSON is LONGTEXT and is read as it is; so is a LONGTEXT or LONGBLOB
// payload on either server (the byte-faithful choice). read_json_as_text says which columns are
// JSON on the server a store talks to (json_columns in table_columns.hpp finds them).
class Schema {
 public:
  // `outbox_event`, no message columns.
  Schema();
  Schema(const SqlIdentifier& table, const std::vector<SqlIdentifier>& message_columns);

  const std::string& table() const { return table_; }                                   // quoted
  const std::vector<std::string>& message_columns() const { return message_columns_; }  // quoted
  const std::string& table_name() const { return table_name_; }  // as configured, for messages

  // The columns among the payload and the message columns that the server types JSON (names
  // compared as MySQL does, without regard to case).
  void read_json_as_text(const std::vector<std::string>& json_columns);
  // What a SELECT lists to read the payload, or message column i of row alias `e`, as text.
  const std::string& payload_expression() const { return payload_expression_; }
  std::string message_column_expression(size_t i) const;

 private:
  std::string table_name_;
  std::string table_;
  std::vector<std::string> message_columns_;
  std::vector<std::string> message_column_names_;  // unquoted, as configured
  std::vector<bool> message_column_json_;
  std::string payload_expression_ = "payload";
};

// Takes a statement's parameters in the order of its placeholders (the MySQL store binds them
// to the prepared statement; tests record them). Each statement below has a binder that calls
// it in its SQL's order, so callers name values and never count positions.
class Parameters {
 public:
  virtual ~Parameters() = default;
  virtual void text(const std::string& value) = 0;
  virtual void integer(int64_t value) = 0;
  virtual void count(uint64_t value) = 0;
  // capacity placeholders, padded by repeating the chunk's last id.
  void ids(const IdChunk& chunk);
};

// What a claim scan may do with a row (ScanColumn::kClaimState). Without ordering every row is
// kClaimable.
struct ClaimState {
  static constexpr int kClaimable = 0;  // no older event of its aggregate is unpublished
  // An older event is unpublished and it is not the one in flight: park the row BLOCKED, so
  // later scans do not read it again until a mark wakes it.
  static constexpr int kBlocked = 1;
  // The aggregate's oldest unpublished event is in flight (PUBLISHING, lease live): it settles
  // within its lease, so leave the row PENDING for a later claim instead of writing it twice
  // (park, wake). The common case of a backlog with several versions per aggregate.
  static constexpr int kWaiting = 2;
  // Claimable, and a later event of its aggregate is unpublished too: a claim that takes
  // chains (ClaimPolicy::chain_length) reads its successors with select_chain. Only in scans
  // built with chains on; a store treats it as kClaimable otherwise.
  static constexpr int kClaimableHead = 3;
  // Committed after the scan's snapshot was taken (the scan's locking read sees it, the order
  // check's snapshot does not): whether an older version is unpublished cannot be told, so
  // the row is left PENDING, unwritten, for the next claim.
  static constexpr int kNewerThanSnapshot = 4;
};

// Column list shared by the claim scans; its order is what the store reads (ScanColumn). Every
// scan adds a ClaimState column, the lease columns, then the schema's message columns.
inline constexpr const char* kEventColumns =
    "e.event_id, e.aggregate_type, e.aggregate_id, e.event_type, e.event_version, "
    "e.payload_bytes, "
    "TIMESTAMPDIFF(MICROSECOND, e.created_at, CURRENT_TIMESTAMP(6)), e.attempts";

// The claim scans' result columns, 1-based as a ResultSet reads them.
struct ScanColumn {
  static constexpr unsigned kEventId = 1;
  static constexpr unsigned kAggregateType = 2;
  static constexpr unsigned kAggregateId = 3;
  static constexpr unsigned kEventType = 4;
  static constexpr unsigned kEventVersion = 5;
  static constexpr unsigned kPayloadBytes = 6;  // the payload itself: select_payloads
  static constexpr unsigned kAgeUs = 7;
  static constexpr unsigned kAttempts = 8;
  static constexpr unsigned kClaimState = 9;      // a ClaimState
  static constexpr unsigned kPreviousOwner = 10;  // read by select_expired: the lease's owner
  static constexpr unsigned kLeaseExpiries = 11;  // read by select_expired: expiries so far
  // Schema::message_columns()[i] is column kFirstMessageColumn + i.
  static constexpr unsigned kFirstMessageColumn = 12;
};

// The columns of select_blocked_due.
struct BlockedDueColumn {
  static constexpr unsigned kEventId = 1;
  static constexpr unsigned kBlocked = 2;
  static constexpr unsigned kBlockedByFailed = 3;  // the aggregate's oldest unpublished is FAILED
};

// The parameter of every scan below (a LIMIT).
struct ScanLimit {
  size_t limit = 0;
  void bind(Parameters& out) const;
};

// PENDING rows, oldest first, read in the order of idx_outbox_pending (no sort), skipping
// rows another relay is claiming right now. Param: ScanLimit.
// With `chains` (per-aggregate only), a claimable row with a later unpublished event of its
// aggregate reads ClaimState::kClaimableHead.
std::string select_pending(const Schema& schema, Ordering ordering, bool chains = false);

// PUBLISHING rows whose lease ended before the database's now, along idx_outbox_due.
// Param: ScanLimit.
std::string select_expired(const Schema& schema, Ordering ordering, bool chains = false);

// RETRY rows whose backoff is over, along idx_outbox_due. Param: ScanLimit.
std::string select_retry_due(const Schema& schema, Ordering ordering, bool chains = false);

// The unpublished events of one aggregate, oldest first, along idx_outbox_aggregate: the
// claimed head itself, then the versions behind it, with the scans' columns (ScanColumn);
// ClaimState is kClaimable for a PENDING row and kBlocked for any other (a chain ends at the
// first one). The rows are locked NOWAIT: a row another claim holds right now fails the
// statement at once (ER_LOCK_WAIT_TIMEOUT, the statement alone rolled back) instead of making
// two claims wait on each other's scans; the head then goes alone. Params: SelectChain.
std::string select_chain(const Schema& schema);
struct SelectChain {
  const std::string& aggregate_type;
  const std::string& aggregate_id;
  size_t limit = 0;  // the head and up to limit - 1 versions behind it
  void bind(Parameters& out) const;
};

// BLOCKED rows due for their safety-net recheck, along idx_outbox_due: (event_id, blocked,
// blocked by a FAILED event). Param: ScanLimit.
std::string select_blocked_due(const Schema& schema, Ordering ordering);

// The payloads of leased rows: (event_id, payload). Params: ids[capacity].
std::string select_payloads(const Schema& schema, size_t capacity);
struct SelectPayloads {
  static constexpr auto sql = select_payloads;
  void bind(Parameters& out, const IdChunk& ids) const;
};

// The statements over a list of event ids. Each has its SQL (one text per capacity) and a
// binder struct holding the other values by name; bind() sets them and the ids in the order
// of the SQL's placeholders (written beside each statement in lease_sql.cpp).

// Parks rows that must wait for an older event of their aggregate: BLOCKED, out of the PENDING
// range (so claims never read them again), with a recheck time that grows with the row's age
// (age / 10, between min and max). Params: recheck max us, recheck min us, ids[capacity].
std::string park_blocked(const Schema& schema, size_t capacity);
struct ParkBlocked {
  static constexpr auto sql = park_blocked;
  Micros recheck_min;
  Micros recheck_max;
  void bind(Parameters& out, const IdChunk& ids) const;
};

// Rows held back by a FAILED event stay BLOCKED with no recheck at all (next_attempt_at NULL,
// outside every due scan): a FAILED event changes only by an operator's requeue or skip, which
// wakes (skip) or reschedules (requeue_aggregate_rechecks) its aggregate. Only rows that an
// older event of their aggregate still holds back as FAILED when the statement runs lose their
// recheck; the rest keep it. Params: ids[capacity].
std::string park_behind_failed(const Schema& schema, size_t capacity);
struct ParkBehindFailed {
  static constexpr auto sql = park_behind_failed;
  void bind(Parameters& out, const IdChunk& ids) const;
};

// BLOCKED -> PENDING. Params: ids[capacity].
std::string wake_blocked(const Schema& schema, size_t capacity);
struct WakeBlocked {
  static constexpr auto sql = wake_blocked;
  void bind(Parameters& out, const IdChunk& ids) const;
};

// Deferred rows due now instead of at their recheck (a paused partition resumed, or probes it):
// RETRY rows only, next_attempt_at = database now. Params: ids[capacity].
std::string wake_deferred(const Schema& schema, size_t capacity);
struct WakeDeferred {
  static constexpr auto sql = wake_deferred;
  void bind(Parameters& out, const IdChunk& ids) const;
};

// One row when the table holds a BLOCKED row at all, none otherwise: the first entry of
// idx_outbox_due's BLOCKED range. A wake finds nothing to do without one, so it asks this first.
std::string any_blocked(const Schema& schema);

// The BLOCKED rows of the given rows' aggregates that nothing holds back any more: the rows
// to wake after those rows were published (or parked): (event_id, aggregate_type,
// aggregate_id). Params: ids[capacity].
std::string select_wakeable(const Schema& schema, size_t capacity);
struct SelectWakeable {
  static constexpr auto sql = select_wakeable;
  void bind(Parameters& out, const IdChunk& ids) const;
};

// The first unpublished events of one aggregate, oldest first, along idx_outbox_aggregate:
// (event_id, status). Read after a head was woken, for the BLOCKED versions right behind it
// that wake with it (up to relay.chain_length), so the next claim takes them as the head's
// chain instead of one version per claim and mark. Params: SelectChain (the same three).
std::string select_wake_chain(const Schema& schema);

// Leases the locked rows to one claim until database now + lease; next_attempt_at follows the
// lease (it is when another relay may take the row over). Params: owner, lease us, lease us,
// ids[capacity].
std::string lease_rows(const Schema& schema, size_t capacity);
struct LeaseRows {
  static constexpr auto sql = lease_rows;
  const std::string& owner;
  Micros lease;
  void bind(Parameters& out, const IdChunk& ids) const;
};

// Counts one more expired, unsettled lease on rows a claim takes over. Params: ids[capacity].
std::string count_lease_expiry(const Schema& schema, size_t capacity);
struct CountLeaseExpiry {
  static constexpr auto sql = count_lease_expiry;
  void bind(Parameters& out, const IdChunk& ids) const;
};

// Rows whose lease expired unsettled relay.max_lease_expiries times: FAILED, not claimed again,
// last_error = reason + the previous last_error. Params: reason, ids[capacity].
std::string fail_unsettled(const Schema& schema, size_t capacity);
struct FailUnsettled {
  static constexpr auto sql = fail_unsettled;
  const std::string& reason;
  void bind(Parameters& out, const IdChunk& ids) const;
};

// Confirmed deliveries: PUBLISHING -> PUBLISHED, only while the lease is still ours.
// Params: owner (published_by), ids[capacity], owner (lease condition).
std::string mark_published(const Schema& schema, size_t capacity);
struct MarkPublished {
  static constexpr auto sql = mark_published;
  const std::string& owner;
  void bind(Parameters& out, const IdChunk& ids) const;
};

// Which of the ids this owner marked (to name the refused ones). Params: ids[capacity], owner.
std::string select_marked_by(const Schema& schema, size_t capacity);
struct SelectMarkedBy {
  static constexpr auto sql = select_marked_by;
  const std::string& owner;
  void bind(Parameters& out, const IdChunk& ids) const;
};

// Rows the relay gave up on for reasons of its own (drain deadline, producer replaced) go
// back to PENDING without counting an attempt. Params: ids[capacity], owner.
std::string release(const Schema& schema, size_t capacity);
struct Release {
  static constexpr auto sql = release;
  const std::string& owner;
  void bind(Parameters& out, const IdChunk& ids) const;
};

// Which of the ids are PENDING and unleased after a release. Params: ids[capacity].
std::string select_released(const Schema& schema, size_t capacity);
struct SelectReleased {
  static constexpr auto sql = select_released;
  void bind(Parameters& out, const IdChunk& ids) const;
};

// Which of the ids this owner still holds, locked for the failure update that follows (once
// that update has run, a row's lease no longer says whose it was). Params: ids[capacity],
// owner.
std::string select_held_by(const Schema& schema, size_t capacity);
struct SelectHeldBy {
  static constexpr auto sql = select_held_by;
  const std::string& owner;
  void bind(Parameters& out, const IdChunk& ids) const;
};

// A retriable publish failure: attempts + 1, then RETRY with exponential backoff and jitter
// (min(max, initial * 2^attempts) scaled by a random factor in [0.5, 1), on the database
// clock), or FAILED once attempts reaches max_attempts. Params: max_attempts, max_attempts,
// backoff max us, backoff initial us, last_error, ids[capacity], owner.
std::string record_retriable_failure(const Schema& schema, size_t capacity);
struct RecordRetriableFailure {
  static constexpr auto sql = record_retriable_failure;
  int max_attempts;
  Micros backoff_initial;
  Micros backoff_max;
  const std::string& last_error;
  const std::string& owner;
  void bind(Parameters& out, const IdChunk& ids) const;
};

// A failure that is nobody's fault yet (a topic not known yet, within its grace): RETRY after
// `delay` on the database clock, attempts unchanged. Params: delay us, last_error,
// ids[capacity], owner.
std::string record_deferral(const Schema& schema, size_t capacity);
struct RecordDeferral {
  static constexpr auto sql = record_deferral;
  Micros delay;
  const std::string& last_error;
  const std::string& owner;
  void bind(Parameters& out, const IdChunk& ids) const;
};

// An operator's hold: RETRY with no recheck, attempts unchanged, until a wake. Params:
// last_error, ids[capacity], owner.
std::string record_hold(const Schema& schema, size_t capacity);
struct RecordHold {
  static constexpr auto sql = record_hold;
  const std::string& last_error;
  const std::string& owner;
  void bind(Parameters& out, const IdChunk& ids) const;
};

// A permanent publish failure: FAILED at once. Params: last_error, ids[capacity], owner.
std::string record_permanent_failure(const Schema& schema, size_t capacity);
struct RecordPermanentFailure {
  static constexpr auto sql = record_permanent_failure;
  const std::string& last_error;
  const std::string& owner;
  void bind(Parameters& out, const IdChunk& ids) const;
};

}  // namespace outbox::lease_sql
