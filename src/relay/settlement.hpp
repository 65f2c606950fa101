#pragma once

// Settling a batch is classify -> apply -> report: classify_deliveries() turns the broker's
// reports into a SettlementPlan (pure, no I/O), the worker applies the plan to the database
// (an AppliedSettlement says what each write did), then reports both in metrics and log lines.

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "claim_store.hpp"
#include "delivery.hpp"
#include "outcome.hpp"

namespace outbox {

// What the delivery reports of one batch mean for its rows. Every list holds indices into the
// batch's events (and outcomes), in batch order.
struct SettlementPlan {
  std::vector<size_t> delivered;    // confirmed with acks=all: mark PUBLISHED
  std::vector<size_t> unconfirmed;  // every other event (released or failed), for the summary
  // Not the event's fault (FailureDisposition::kNotAttempted: the relay purged it at a drain,
  // replaced its producer, ran out of queue): back to PENDING, no attempt counted.
  std::vector<size_t> released;
  // The event's own failures, grouped by what is stored on the row (permanent, error): one
  // statement per group, and a batch usually fails for one reason.
  std::map<PublishFailure, std::vector<size_t>> failures;
};

// Classifies each outcome by its status and, for a failure, classify_failure(error_code).
SettlementPlan classify_deliveries(const std::vector<DeliveryOutcome>& outcomes);

// The event ids at `indices` of `events`.
std::vector<std::string> ids_at(const std::vector<OutboxEvent>& events,
                                const std::vector<size_t>& indices);

// One database write of a settlement: the rows it covered and what the database said (an
// Error once the retries ran out before the lease ended).
template <typename Result>
struct AppliedWrite {
  std::vector<std::string> ids;
  Outcome<Result> result;
};

// What applying a SettlementPlan did; a write the plan had no rows for is absent.
struct AppliedSettlement {
  std::optional<AppliedWrite<MarkResult>> mark;
  std::optional<AppliedWrite<LeaseUpdateResult>> release;
  std::vector<AppliedWrite<LeaseUpdateResult>> failures;  // one per plan.failures group, in order
};

}  // namespace outbox
