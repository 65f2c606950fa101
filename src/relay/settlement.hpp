#pragma once

// Settling a batch is classify -> apply -> report: classify_deliveries() turns the broker's
// reports into a SettlementPlan (pure, no I/O), the worker applies the plan to the database
// (an AppliedSettlement says what each write did), then reports both in metrics and log lines.

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "config/duration.hpp"
#include "lease_store/lease_store.hpp"
#include "outcome.hpp"
#include "publish/publisher.hpp"

namespace outbox {

// What the delivery reports of one batch mean for its rows. Every list holds indices into the
// batch's events (and outcomes), in batch order.
struct SettlementPlan {
  std::vector<size_t> delivered;    // confirmed with acks=all: mark PUBLISHED
  std::vector<size_t> unconfirmed;  // every other event, for the summary
  // The relay's own doing (FailureKind::kNotAttempted: purged at a drain, producer
  // replaced, out of queue or of time to enqueue): back to PENDING, no attempt counted.
  std::vector<size_t> released;
  // The cluster's trouble (kTransient) on a partition where no event of this batch was
  // delivered: an outage, not the events' fault. Back to PENDING, no attempt counted; the
  // outage gate (outage_gate.hpp) pauses claims until a probe gets through.
  std::vector<size_t> outage;
  // Outage failures on a known partition, taken out of `outage` by the worker: the partition
  // is paused (paused_partitions.hpp) and these rows deferred for it, no attempt counted.
  std::map<Destination, std::vector<size_t>> held;
  // How many of `held` failed on a partition that was paused before this batch settled: a
  // paused partition's probes, and its events sent just before the pause. They say nothing new
  // about the cluster, so they never start an outage (outage_gate.hpp).
  size_t held_on_paused = 0;
  // The topic or partition is not known (kUnknownTopic): retried without an attempt while the
  // topic's grace lasts, then FAILED (the worker asks UnknownTopics which).
  std::vector<size_t> unknown_topic;
  // Filled by the worker from unknown_topic (UnknownTopics' verdicts): retried after
  // `defer_for` without an attempt; those past their grace go to `failures` as permanent.
  std::vector<size_t> deferred;
  Micros defer_for{};
  // Failures that count an attempt, grouped by what is stored on the row (permanent, error):
  // the event's own fault (FAILED at once), or the cluster's trouble hitting this event while
  // others of its partition were delivered. One statement per group.
  std::map<PublishFailure, std::vector<size_t>> failures;
};

// Classifies each outcome by its status and, for a failure, its failure kind (outcome.failure())
// and whether another event of its partition (its topic, when the partition is unknown) was
// delivered in the same batch.
SettlementPlan classify_deliveries(const std::vector<DeliveryOutcome>& outcomes);

// "NOT_ENOUGH_REPLICAS: ... on outbox.order[2]": the first of the plan's outage failures
// (those of `outage`, else of `held`), for
// the outage gate and the log.
std::string describe_outage(const SettlementPlan& plan,
                            const std::vector<DeliveryOutcome>& outcomes);

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
  std::optional<AppliedWrite<LeaseUpdateResult>> release;  // plan.released and plan.outage
  std::optional<AppliedWrite<LeaseUpdateResult>> deferral;
  std::vector<AppliedWrite<LeaseUpdateResult>> held;      // one per plan.held partition, in order
  std::vector<AppliedWrite<LeaseUpdateResult>> failures;  // one per plan.failures group, in order
};

}  // namespace outbox
