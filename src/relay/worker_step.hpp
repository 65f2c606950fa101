#pragma once

// The worker's loop as a small state machine: every round tries to claim (unless something
// says not now), then takes the one step that what the claim came to calls for. next_step() is
// that choice, a pure function so the policy is tested without threads or servers.

namespace outbox {

// What one round's claim attempt came to.
enum class ClaimResult {
  kPipelineFull,  // not tried: pipeline_depth batches are in flight
  kDatabaseDown,  // not tried: no usable claim store (opening a new one failed)
  kBrokerDown,    // not tried: the publisher says no broker answers, or the outage gate waits
  kBudgetSpent,   // not tried: the process's byte budget is in use by batches in flight
  kRateLimited,   // not tried: relay.max_events_per_second allows no event yet
  kFailed,        // the claim transaction failed (not committed, or outcome unknown)
  kOnlyParked,    // leased nothing but parked rows behind older ones: rows behind those may be
                  // claimable, so look again (after settling a batch in flight, if any)
  kOnlyWaiting,   // leased nothing: every row read waits behind its aggregate's event in
                  // flight, which settles within its lease
  kNothing,       // nothing claimable
  kShortBatch,    // fewer rows than asked for: the backlog is drained
  kFullBatch,     // a full batch: more is likely waiting
};

// What the worker does after the claim attempt of a round.
enum class Step {
  kClaim,         // straight on to the next round's claim
  kSettleOldest,  // wait for the oldest batch's delivery reports, then settle it
  kSettleAll,     // settle every batch in flight: for latency, instead of pipelining a claim
                  // that would most likely find nothing
  kBackOff,       // cannot claim and nothing to settle: wait, the pause growing each time (for
                  // kRateLimited: until the pace allows the next event)
  kIdle,          // nothing to claim or settle: wait the poll pause (longer as it stays empty)
};

// Settling comes first whenever a claim is not possible or found nothing: a batch in flight
// may still be markable, and its lease is running.
Step next_step(ClaimResult claim, bool batches_in_flight);

}  // namespace outbox
