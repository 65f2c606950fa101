#include "worker_step.hpp"

namespace outbox {

Step next_step(ClaimResult claim, bool batches_in_flight) {
  switch (claim) {
    case ClaimResult::kPipelineFull:
      return Step::kSettleOldest;
    case ClaimResult::kDatabaseDown:
    case ClaimResult::kBrokerDown:
    case ClaimResult::kFailed:
      return batches_in_flight ? Step::kSettleOldest : Step::kBackOff;
    case ClaimResult::kBudgetSpent:
      // Other batches hold the bytes and free them as they settle: poll, do not back off.
      return batches_in_flight ? Step::kSettleOldest : Step::kIdle;
    case ClaimResult::kRateLimited:
      // Settling is work the limit does not hold back; otherwise wait for the next event due.
      return batches_in_flight ? Step::kSettleOldest : Step::kBackOff;
    case ClaimResult::kOnlyParked:
      // Rows behind the parked ones may be claimable, but a batch of ours in flight comes
      // first: claiming on instead walks the whole backlog behind its heads, parking (and
      // later waking) nearly every row of it, two writes each, before anything is marked.
      return batches_in_flight ? Step::kSettleOldest : Step::kClaim;
    case ClaimResult::kOnlyWaiting:
      // Rows wait behind events in flight: settling our own oldest batch may be what frees
      // them; otherwise another worker's or relay's batch is: poll, as for nothing.
    case ClaimResult::kNothing:
      return batches_in_flight ? Step::kSettleOldest : Step::kIdle;
    case ClaimResult::kShortBatch:
      return Step::kSettleAll;
    case ClaimResult::kFullBatch:
      return Step::kClaim;
  }
  return Step::kClaim;
}

}  // namespace outbox
