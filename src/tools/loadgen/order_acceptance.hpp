#pragma once

#include <cstdint>
#include <stop_token>

#include "backoff.hpp"
#include "order_writer.hpp"
#include "outcome.hpp"

namespace outbox::loadgen {

// What it took to get orders accepted: how often each branch of the procedure ran.
struct AcceptanceCounts {
  int64_t committed = 0;          // accepted by this run's own commit
  int64_t already_accepted = 0;   // a submit answered AlreadyAccepted
  int64_t unknown = 0;            // commits whose outcome was unknown
  int64_t reconciled_found = 0;   // ... that reconcile found committed (stored ids reused)
  int64_t reconciled_absent = 0;  // ... that reconcile found absent (resubmitted, same ids)
  int64_t retried = 0;            // confirmed rollbacks of a transient kind, resubmitted
};

// The seed's procedure for one order, until the database has it:
//   Committed / AlreadyAccepted      -> done (AlreadyAccepted: the stored ids are the order's)
//   RolledBack, transient error      -> resubmit the same ids after a backoff pause
//   RolledBack, anything else        -> an error: the order is wrong, retrying cannot help
//   CommitOutcomeUnknown             -> never resubmit blindly: reconcile on the primary
//                                       (retried until it answers); found -> done with the
//                                       stored ids; absent -> resubmit the very same ids
// Returns the ids the database holds for the order, or why it cannot be accepted (also when
// `stop` ends the wait).
Outcome<writer::AcceptedOrder> accept_order(writer::OrderWriter& writer,
                                            const writer::OrderSubmission& order, Backoff& backoff,
                                            AcceptanceCounts& counts, const std::stop_token& stop);

}  // namespace outbox::loadgen
