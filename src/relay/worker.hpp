#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>

#include "backoff.hpp"
#include "byte_budget.hpp"
#include "event_rate.hpp"
#include "lease_store/lease_store.hpp"
#include "observe/relay_stats.hpp"
#include "operator/operator_pauses.hpp"
#include "operator/paused_partitions.hpp"
#include "outage_gate.hpp"
#include "poll_schedule.hpp"
#include "publish/publisher.hpp"
#include "settings/relay_settings.hpp"
#include "settlement.hpp"
#include "worker_step.hpp"

namespace outbox {

struct WorkerSettings {
  int index = 0;
  std::string claimant;  // prefix of this process's lease tokens (claimant_id())
  // relay.*'s, defaults included (relay_settings.hpp).
  Micros lease = relay_defaults().lease;
  Micros backoff_initial = relay_defaults().backoff_initial;
  Micros backoff_max = relay_defaults().backoff_max;
  // Attempts before a row is parked as FAILED (to say so in the log when it happens).
  int max_attempts = relay_defaults().max_attempts;
  int max_lease_expiries = relay_defaults().max_lease_expiries;  // for the log
  // The most payload bytes one claim may reserve: the byte budget divided among the batches
  // that can be in flight at once (workers x pipeline_depth).
  uint64_t claim_bytes = UINT64_MAX;
  // Batches published but not yet settled. 2 lets the claim of batch k+1 overlap the broker
  // round trip of batch k.
  size_t pipeline_depth = 2;
};

// Opens a fresh LeaseStore (a new DB session) after a connection failure.
using LeaseStoreFactory = std::function<Outcome<std::unique_ptr<LeaseStore>>()>;

// When a drain must end: set once a stop was requested; until then time_point::max().
class DrainDeadline {
 public:
  void start(Micros budget) {
    deadline_.store((std::chrono::steady_clock::now() + budget).time_since_epoch().count());
  }
  std::chrono::steady_clock::time_point get() const {
    return std::chrono::steady_clock::time_point(
        std::chrono::steady_clock::duration(deadline_.load()));
  }

 private:
  std::atomic<std::chrono::steady_clock::rep> deadline_{
      std::chrono::steady_clock::time_point::max().time_since_epoch().count()};
};

class HealthBoard;

// What the workers of one process share.
struct WorkerShared {
  Publisher& publisher;
  RelayStats& stats;
  const DrainDeadline& drain;
  PollSchedule& polls;
  HealthBoard& health;
  const std::atomic<size_t>& batch_size;  // relay.batch_size; SIGHUP may change it
  OutageGate& outage_gate;                // the outage gate and unknown topics
  ByteBudget& bytes;                      // relay.max_in_flight_bytes
  PausedPartitions& holds;                // paused partitions and the events held for them
  EventRate& rate;                        // relay.max_events_per_second
  OperatorPauses& pauses;                 // operators' pauses (outboxctl pause)
};

// Every delivery report of a batch must arrive, and its mark commit, this long before the
// batch's lease ends (by the worker's clock, from the start of the claim): the enqueue
// deadline handed to Publisher::send() is set so.
inline constexpr std::chrono::seconds kLeaseMargin{2};

// One relay worker: claim -> publish -> (wait for reports) -> mark or release, with up to
// pipeline_depth batches in flight. Runs until `stop`, then settles what it holds: marks
// what the broker confirmed, releases the rest.
//
// Each round of run() tries to claim, then takes one Step (worker_step.hpp): claim again,
// settle the oldest batch, settle all, back off or idle. The claim side is in worker.cpp, the
// settlement (classify -> apply -> report, settlement.hpp) in worker_settlement.cpp.
class Worker {
 public:
  Worker(WorkerSettings settings, LeaseStoreFactory open_store, WorkerShared shared);

  void run(const std::stop_token& stop);

 private:
  struct InFlightBatch {
    ClaimedBatch claim;
    std::unique_ptr<InFlightDeliveries> deliveries;
    std::chrono::steady_clock::time_point claimed_at;
    std::chrono::steady_clock::time_point lease_ends;  // by our clock: claim start + lease
    bool probe = false;                                // claimed as the outage gate's probe
    ByteBudget::Hold bytes;                            // its payloads, given back once settled
  };

  // What a round's claim attempt came to, with what the step after it needs.
  struct ClaimAttempt {
    ClaimResult result;
    std::optional<Error> error{};  // kFailed: why
    // kFailed: the pause before the next claim. The backoff grows with every failed claim,
    // also when the worker settles a batch instead of waiting.
    Micros retry_pause{};
  };

  // A usable store: the one it has, unless an error showed its session broken or it sat idle
  // for half the lease, then a new one. False (and said why) while none can be opened.
  bool ensure_store();
  // store_, after ensure_store(), for a statement now (it notes the use).
  LeaseStore& used_store();

  // The claim side (worker.cpp).
  void take_step(Step step, const ClaimAttempt& attempt, const std::stop_token& stop);
  ClaimAttempt try_claim();
  // The one place that decides whether to claim now; nullopt means claim.
  std::optional<ClaimResult> reason_not_to_claim();
  // Claims up to `limit` rows whose payloads fit `allowance` (a probe of the outage gate when
  // `probe`) and sends them; keeps what the claim used of the reserved allowance.
  ClaimAttempt claim_and_send(size_t limit, bool probe, ByteBudget::Allowance allowance);
  void report_claim(const ClaimedBatch& batch);
  // Hands the batch to the publisher and keeps it in flight, holding `bytes`, until it is
  // settled. A send() that throws leaves a batch of events not handed over, settled as such.
  void send(ClaimedBatch batch, std::chrono::steady_clock::time_point claimed_at, bool probe,
            ByteBudget::Hold bytes);
  void back_off(const ClaimAttempt& attempt, const std::stop_token& stop);
  void idle(const std::stop_token& stop);
  // After a mark or a parking claim committed (per-aggregate ordering).
  void wake_successors(const std::vector<std::string>& ids);

  // Paused partitions (worker_paused_partitions.cpp, paused_partitions.hpp).
  // Wakes the held events of paused partitions whose probe is due.
  void wake_due_probes();
  // Takes the events of paused partitions out of a fresh claim (with the versions chained
  // behind them) and defers them unsent; says how many, and how many of those it kept are
  // paused partitions' probes.
  struct HeldAtClaim {
    size_t held = 0;
    size_t probes = 0;
  };
  HeldAtClaim hold_paused(ClaimedBatch& batch);
  // Settlement: deliveries resume their partitions (their held events are woken); outage
  // failures on a known partition pause it and move to plan.held instead of plan.outage.
  void consult_paused_partitions(const InFlightBatch& batch, SettlementPlan& plan);
  // False when the wake failed (logged; the rows wait for their recheck).
  bool wake_held(const std::vector<std::string>& ids, const char* why);
  // Holds the events at `indices` of a fresh claim for an operator's pause (`error`, the
  // rows' last_error) until it is resumed, or wakes them at once if it ended meanwhile.
  void hold_for_operator(const ClaimedBatch& batch, const std::vector<OutboxEvent>& events,
                         const std::vector<size_t>& indices, const std::string& error);

  // The settlement side (worker_settlement.cpp).
  void settle_all();
  void settle_oldest();
  void await_reports(const InFlightBatch& batch);
  // Tells the outage gate and the unknown-topic tracker what the batch's reports say, and turns
  // the plan's unknown topics into deferrals or failures.
  void consult_outage_gate(const InFlightBatch& batch, SettlementPlan& plan);
  void report_deliveries(const InFlightBatch& batch, const SettlementPlan& plan);
  AppliedSettlement apply(const InFlightBatch& batch, const SettlementPlan& plan);
  void report_settlement(const InFlightBatch& batch, const SettlementPlan& plan,
                         const AppliedSettlement& applied);
  void report_mark(const InFlightBatch& batch, const AppliedWrite<MarkResult>& mark);
  void report_release(const InFlightBatch& batch, const AppliedWrite<LeaseUpdateResult>& release);
  void report_deferral(const InFlightBatch& batch, const AppliedWrite<LeaseUpdateResult>& deferral);
  // Logs and counts the failure of the events at `indices` once the store says what it did.
  void report_failure(const InFlightBatch& batch, const std::vector<size_t>& indices,
                      const PublishFailure& failure,
                      const AppliedWrite<LeaseUpdateResult>& recorded);
  // Runs op until it succeeds or `until` (or the drain deadline, re-read each round) passes,
  // reopening the store between attempts.
  template <typename Op>
  auto retry_until(std::chrono::steady_clock::time_point until, const char* what, Op op)
      -> decltype(op(std::declval<LeaseStore&>()));

  WorkerSettings settings_;
  LeaseStoreFactory open_store_;
  Publisher& publisher_;
  RelayStats& stats_;
  const DrainDeadline& drain_;
  PollSchedule& polls_;
  HealthBoard& health_;
  const std::atomic<size_t>& batch_size_;
  OutageGate& outage_gate_;
  ByteBudget& bytes_;
  PausedPartitions& holds_;
  EventRate& rate_;
  OperatorPauses& pauses_;
  // Events the last claim sent (the rest of what the rate granted goes back).
  size_t claimed_events_ = 0;
  int empty_streak_ = 0;
  std::chrono::steady_clock::time_point streak_started_{};
  std::unique_ptr<LeaseStore> store_;
  // When store_ last ran a statement (used_store()): a session idle for half the lease is
  // replaced before its next use (claim_session_idle.hpp).
  std::chrono::steady_clock::time_point store_used_at_{};
  std::deque<InFlightBatch> in_flight_;
  uint64_t claim_sequence_ = 0;
  Backoff backoff_;
};

}  // namespace outbox
