// The worker's side of paused partitions (paused_partitions.hpp): holding a paused
// partition's events back at claim, pausing and resuming partitions at settlement, waking
// held events for probes and resumptions.
#include <spdlog/spdlog.h>

#include <set>

#include "worker.hpp"
#include "worker_log.hpp"

namespace outbox {
namespace {

using std::chrono::steady_clock;

std::string partition_held_error(const PausedPartitions& holds, const Destination& destination) {
  return PausedPartitions::kErrorPrefix + holds.reason(destination, steady_clock::now());
}

}  // namespace

bool Worker::wake_held(const std::vector<std::string>& ids, const char* why) {
  if (ids.empty()) return true;
  if (!ensure_store()) return false;
  Outcome<size_t> woken = used_store().wake_deferred(ids);
  if (!woken) {
    ++stats_.db_errors;
    spdlog::warn(
        "worker {}: could not wake {} held events ({}): {}; they come back at their "
        "recheck instead (an operator's pause: at the pause watcher's next wake)",
        settings_.index, ids.size(), why, woken.error().message);
    return false;
  }
  spdlog::debug("worker {}: woke {} of {} held events ({})", settings_.index, woken.value(),
                ids.size(), why);
  return true;
}

void Worker::wake_due_probes() {
  wake_held(holds_.due_probes(steady_clock::now()), "probe");
}

void Worker::hold_for_operator(const ClaimedBatch& batch, const std::vector<OutboxEvent>& events,
                               const std::vector<size_t>& indices, const std::string& error) {
  const std::vector<std::string> ids = ids_at(events, indices);
  // Not retried: a failed hold leaves the rows leased, claimed (and held) again when the lease
  // ends; unless it committed unseen, and its pause ended meanwhile: the watcher's next wake
  // covers that.
  Outcome<LeaseUpdateResult> on_hold = used_store().hold(batch.token, ids, error);
  if (!on_hold) {
    ++stats_.db_errors;
    pauses_.request_wake();
    spdlog::warn(
        "worker {}: claim {}: could not hold {} events for an operator's pause ({}); they are "
        "claimed again when their lease ends",
        settings_.index, batch.token.value(), ids.size(), on_hold.error().message);
    return;
  }
  stats_.events_held_by_operator += on_hold.value().changed;
  spdlog::debug("worker {}: claim {} held {} events for an operator's pause ({}): {}",
                settings_.index, batch.token.value(), ids.size(), error, some_ids(ids));
  // The pause may have ended while the rows were being held: the watcher wakes held rows only
  // after it stopped holding new ones, so either it wakes these, or this check sees the end.
  // Event by event: each must still be held by the very pause its last_error names (another
  // pause that holds it now would leave it naming one that ended).
  std::vector<std::string> ended;
  for (size_t i : indices) {
    const std::optional<std::string> now =
        pauses_.holding(publisher_.destination_of(events[i]).topic, events[i].aggregate_type);
    if (now != error) ended.push_back(events[i].event_id);
  }
  if (ended.empty()) return;
  if (!wake_held(ended, "operator's pause ended while holding")) pauses_.request_wake();
}

Worker::HeldAtClaim Worker::hold_paused(ClaimedBatch& batch) {
  std::vector<OutboxEvent>& events = batch.events;
  std::vector<bool> hold(events.size(), false);
  std::vector<Destination> held_for(events.size());
  // The last_error of an event an operator's pause holds; empty for a paused partition's.
  std::vector<std::string> paused_by_operator(events.size());
  std::map<Destination, std::vector<size_t>> by_partition;
  std::map<std::string, std::vector<size_t>> by_operator_pause;
  HeldAtClaim result;
  for (size_t i = 0; i < events.size(); ++i) {
    // A version behind a held one is held with it, whatever its own partition: it must not
    // land before its predecessor. `after` lists predecessors first.
    if (!batch.after.empty() && batch.after[i] != i && hold[batch.after[i]]) {
      hold[i] = true;
      held_for[i] = held_for[batch.after[i]];
      paused_by_operator[i] = paused_by_operator[batch.after[i]];
      if (paused_by_operator[i].empty()) {
        by_partition[held_for[i]].push_back(i);
      } else {
        by_operator_pause[paused_by_operator[i]].push_back(i);
      }
      continue;
    }
    Destination destination = publisher_.destination_of(events[i]);
    if (pauses_.any()) {
      if (std::optional<std::string> held_by =
              pauses_.holding(destination.topic, events[i].aggregate_type)) {
        hold[i] = true;
        held_for[i] = destination;
        paused_by_operator[i] = *held_by;
        by_operator_pause[std::move(*held_by)].push_back(i);
        continue;
      }
    }
    if (!holds_.topic_paused(destination.topic)) continue;
    const PausedPartitions::Verdict verdict = holds_.verdict(destination, events[i].event_id);
    if (verdict == PausedPartitions::Verdict::kProbe) ++result.probes;
    if (verdict != PausedPartitions::Verdict::kHold) continue;
    hold[i] = true;
    held_for[i] = destination;
    by_partition[std::move(destination)].push_back(i);
  }
  if (by_partition.empty() && by_operator_pause.empty()) return result;
  size_t& held = result.held;
  for (const auto& [error, indices] : by_operator_pause) {
    held += indices.size();
    hold_for_operator(batch, events, indices, error);
  }
  for (const auto& [destination, indices] : by_partition) {
    const std::vector<std::string> ids = ids_at(events, indices);
    const std::string error = partition_held_error(holds_, destination);
    // Not retried: a failed deferral leaves the rows leased, claimed again when the lease ends.
    Outcome<LeaseUpdateResult> deferred = used_store().defer(
        batch.token, ids, holds_.recheck_for(destination, steady_clock::now()), error);
    if (!deferred) {
      ++stats_.db_errors;
      spdlog::warn(
          "worker {}: claim {}: could not hold {} events of paused partition {} ({}); "
          "they are claimed again when their lease ends",
          settings_.index, batch.token.value(), ids.size(), destination.name(),
          deferred.error().message);
    } else {
      holds_.held_at_claim(destination, ids);
      stats_.events_held += deferred.value().changed;
    }
    held += ids.size();
    spdlog::debug("worker {}: claim {} held {} events of paused partition {}: {}", settings_.index,
                  batch.token.value(), ids.size(), destination.name(), some_ids(ids));
  }
  // The batch keeps the rest, with `after` renumbered.
  std::vector<size_t> new_index(events.size(), 0);
  std::vector<OutboxEvent> kept;
  std::vector<size_t> kept_after;
  uint64_t kept_bytes = 0;
  size_t chained = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    if (hold[i]) continue;
    new_index[i] = kept.size();
    if (!batch.after.empty()) {
      const size_t before = batch.after[i] == i ? kept.size() : new_index[batch.after[i]];
      if (before != kept.size()) ++chained;
      kept_after.push_back(before);
    }
    kept_bytes += events[i].budget_bytes();
    kept.push_back(std::move(events[i]));
  }
  events = std::move(kept);
  batch.after = chained > 0 ? std::move(kept_after) : std::vector<size_t>{};
  batch.chained = chained;
  batch.budget_bytes = kept_bytes;
  return result;
}

void Worker::consult_paused_partitions(const InFlightBatch& batch, SettlementPlan& plan) {
  const std::vector<DeliveryOutcome>& outcomes = batch.deliveries->outcomes();
  const auto now = steady_clock::now();
  std::set<Destination> delivered;
  for (size_t i : plan.delivered) {
    if (outcomes[i].partition >= 0) delivered.insert({outcomes[i].topic, outcomes[i].partition});
  }
  for (const Destination& destination : delivered)
    wake_held(holds_.delivered(destination, now), "partition resumed");
  // Outage failures on a known partition pause it; the rest (partition unknown) go back to
  // PENDING as before.
  std::vector<size_t> unplaced;
  for (size_t i : plan.outage) {
    if (outcomes[i].partition < 0) {
      unplaced.push_back(i);
      continue;
    }
    plan.held[Destination{outcomes[i].topic, outcomes[i].partition}].push_back(i);
  }
  plan.outage = std::move(unplaced);
  std::set<std::string> topics;
  for (const auto& [destination, indices] : plan.held) {
    const DeliveryOutcome& first = outcomes[indices.front()];
    const bool topic_was_paused = holds_.topic_paused(destination.topic);
    if (!holds_.failed(destination, first.error, ids_at(batch.claim.events, indices), now))
      plan.held_on_paused += indices.size();
    if (!topic_was_paused) topics.insert(destination.topic);
  }
  // The first pause of a topic: learn its partition count, so the claims that follow hold its
  // paused partitions' events without sending them.
  for (const std::string& topic : topics)
    publisher_.learn_partitions(topic);
}

}  // namespace outbox
