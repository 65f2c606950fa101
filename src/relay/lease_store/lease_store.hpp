#pragma once

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "config/duration.hpp"
#include "lease_store/lease_token.hpp"
#include "outbox_event.hpp"
#include "outcome.hpp"

namespace outbox {

// How many payload bytes a claim may take (a ByteBudget allowance): rows are taken in claim
// order while their payloads fit; the first row is taken however large when `alone` (nothing
// else in flight), so a row larger than any allowance still gets through, by itself.
struct PayloadAllowance {
  uint64_t bytes = UINT64_MAX;
  bool alone = true;
};

// Rows this worker now holds: status PUBLISHING, lease_owner = token.
struct ClaimedBatch {
  explicit ClaimedBatch(LeaseToken claim_token) : token(std::move(claim_token)) {}

  LeaseToken token;
  std::vector<OutboxEvent> events;
  // Log text, one note per event taken over from an expired lease (a dead or stalled owner):
  // "<event id> (was <previous owner>)".
  std::vector<std::string> reclaimed_notes;
  // How many of `events` are RETRY rows whose backoff ended.
  size_t retried = 0;
  // The sum of the events' budget_bytes(), kept against the byte budget until they settle.
  uint64_t budget_bytes = 0;
  // Log text, one note per expired row this claim parked as FAILED instead of taking it over:
  // its lease had expired unsettled relay.max_lease_expiries times.
  std::vector<std::string> failed_unsettled_notes;
  // Rows this claim found held back by an older event of their aggregate and parked as
  // BLOCKED instead of claiming (per-aggregate ordering). A claim can park rows and return no
  // events while more are claimable. Pass them to wake_successors() after the claim.
  std::vector<std::string> parked;
  // Rows this claim left PENDING because their aggregate's oldest unpublished event was in
  // flight (lease_sql::ClaimState::kWaiting): claimable once that one is marked, with no
  // write in between.
  size_t waiting = 0;
  // Chains (ClaimPolicy::chain_length): after[i] is the index of the event that the broker
  // must acknowledge before events[i] is sent, the previous version of its aggregate taken by
  // this claim; i itself when nothing comes before it. Empty when the claim took no chain.
  std::vector<size_t> after;
  // How many of `events` are versions taken behind their aggregate's head (after[i] != i).
  size_t chained = 0;
};

// Why a delivery failed, as it is stored on the row.
struct PublishFailure {
  bool permanent = false;  // FAILED at once; otherwise RETRY with backoff until max attempts
  std::string error;       // last_error

  friend bool operator==(const PublishFailure&, const PublishFailure&) = default;
  // Groups failures by what is stored (settlement.hpp): permanent, then error text.
  friend bool operator<(const PublishFailure& a, const PublishFailure& b) {
    return std::tie(a.permanent, a.error) < std::tie(b.permanent, b.error);
  }
};

// What a mark did. A row it refused was delivered, but another claim holds it now (our lease
// expired and the row was taken over): that claim publishes it again, an expected duplicate.
struct MarkResult {
  size_t changed = 0;
  std::vector<std::string> refused;
};

// What a release or a record failure did. Rows no longer leased to this claim (another claim
// took them over after our lease expired) are left as they are.
struct LeaseUpdateResult {
  size_t changed = 0;
  std::vector<std::string> no_longer_leased;
};

// The database side of claim -> publish -> mark. Every method is one short transaction;
// an Error means the transaction did not commit (or its outcome is unknown), which is always
// safe: unmarked rows stay leased and are reclaimed when the lease ends.
class LeaseStore {
 public:
  virtual ~LeaseStore() = default;

  // Takes up to `limit` rows and leases them to `token` until database now + `lease`: PENDING
  // rows in created_at order, preceded (at most once per reclaim interval per process) by
  // expired leases and finished backoffs.
  // Payloads are fetched only for the rows leased: parked rows and rows beyond the allowance
  // are never read with their payload.
  virtual Outcome<ClaimedBatch> claim(const LeaseToken& token, size_t limit, Micros lease,
                                      const PayloadAllowance& bytes = {}) = 0;

  // PUBLISHING -> PUBLISHED for rows still leased to `token`; only for confirmed deliveries.
  virtual Outcome<MarkResult> mark_published(const LeaseToken& token,
                                             const std::vector<std::string>& ids) = 0;

  // PUBLISHING -> PENDING for rows still leased to `token`, without counting an attempt: for
  // deliveries the relay itself gave up on (drain deadline, producer replaced).
  virtual Outcome<LeaseUpdateResult> release(const LeaseToken& token,
                                             const std::vector<std::string>& ids) = 0;

  // PUBLISHING -> RETRY (backoff) or FAILED for rows still leased to `token` whose delivery
  // failed; counts an attempt and stores the error.
  virtual Outcome<LeaseUpdateResult> record_failure(const LeaseToken& token,
                                                    const std::vector<std::string>& ids,
                                                    const PublishFailure& failure) = 0;

  // PUBLISHING -> RETRY after `delay`, attempts unchanged, for rows still leased to `token`
  // whose failure is nobody's fault yet (a topic not known yet, within its grace).
  virtual Outcome<LeaseUpdateResult> defer(const LeaseToken& token,
                                           const std::vector<std::string>& ids, Micros delay,
                                           const std::string& error) = 0;

  // PUBLISHING -> RETRY with no recheck (next_attempt_at NULL), attempts unchanged, for rows
  // still leased to `token` that an operator's pause holds (operator_pauses.hpp): no claim
  // takes them until a wake (wake_deferred, pause_sql::wake_ended) gives them one.
  virtual Outcome<LeaseUpdateResult> hold(const LeaseToken& token,
                                          const std::vector<std::string>& ids,
                                          const std::string& error) = 0;

  // Per-aggregate ordering: wakes the BLOCKED events of these events' aggregates that nothing
  // holds back any more. Call it after a mark (with the marked ids) and after a claim that
  // parked rows (with the parked ids), each time after that transaction committed: then of
  // two relays racing (one parks a successor while the other publishes its predecessor) one
  // of the two checks sees the other's commit, and no wakeup is lost. Returns how many woke.
  virtual Outcome<size_t> wake_successors(const std::vector<std::string>& ids) = 0;

  // RETRY rows among `ids` due now instead of at their recheck (or instead of never): the
  // events a paused partition held, when it resumed or is probed (paused_partitions.hpp), and
  // those an operator's pause held when it ended. Returns how many.
  virtual Outcome<size_t> wake_deferred(const std::vector<std::string>& ids) = 0;

  // True once a connection error showed the session unusable (the worker then opens a new
  // store). False says only that no error has shown it broken yet, not that the server is up.
  virtual bool known_broken() const = 0;
  // Once known_broken(): what broke it, for /readyz and the log ("mysql: read-only (error
  // 1290): claim failed: ..."); "" otherwise.
  virtual std::string session_problem() const = 0;
};

}  // namespace outbox
