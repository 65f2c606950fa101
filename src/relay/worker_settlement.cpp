// Settling a batch: wait for its delivery reports, classify them (settlement.hpp), apply the
// result to the database, report what the broker and then the database said.
#include "worker.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <set>
#include <thread>

#include "failpoint.hpp"
#include "observe/health_board.hpp"
#include "worker_log.hpp"

namespace outbox {
namespace {

using std::chrono::steady_clock;

// How long to wait for a batch's reports before saying so in the log. librdkafka bounds the
// wait itself (message.timeout.ms), so this only makes a long wait visible.
constexpr std::chrono::seconds kReportWaitNotice{10};
// The wait for reports ticks the worker's health this often: well below the smallest
// metrics.stall_timeout (5 s), so a legitimate wait never looks like a stall.
constexpr std::chrono::seconds kReportWaitTick{1};

}  // namespace

void Worker::settle_all() {
  while (!in_flight_.empty())
    settle_oldest();
}

void Worker::settle_oldest() {
  const InFlightBatch batch = std::move(in_flight_.front());
  in_flight_.pop_front();
  await_reports(batch);
  SettlementPlan plan = classify_deliveries(batch.deliveries->outcomes());
  consult_paused_partitions(batch, plan);
  consult_outage_gate(batch, plan);
  report_deliveries(batch, plan);
  // Fault injection: the window between the broker's confirmation and the mark. "kill" dies
  // here; "error" drops the batch as a crashed worker would, leaving the rows to their lease.
  if (failpoints::hit(failpoints::kRelayAfterPublishBeforeMark)) {
    spdlog::warn("worker {}: failpoint: claim {} abandoned unmarked", settings_.index,
                 batch.claim.token.value());
  } else {
    report_settlement(batch, plan, apply(batch, plan));
  }
  stats_.events_in_flight -= static_cast<int64_t>(batch.claim.events.size());
  // The batch's bytes go back to the budget as it goes out of scope, on every path.
}

void Worker::await_reports(const InFlightBatch& batch) {
  // librdkafka reports every message within message.timeout.ms, which the lease outlasts.
  // Waiting past the lease means that promise broke: stop feeding /healthz so the process is
  // restarted (the slots the reports point at cannot be freed before they arrive).
  auto notice_at = steady_clock::now() + kReportWaitNotice;
  while (!batch.deliveries->wait_until(steady_clock::now() + kReportWaitTick)) {
    const auto now = steady_clock::now();
    const bool within_lease = now < batch.lease_ends;
    if (within_lease) health_.tick(settings_.index);
    if (now < notice_at) continue;
    notice_at = now + kReportWaitNotice;
    if (within_lease) {
      spdlog::warn("worker {}: claim {}: still waiting for delivery reports", settings_.index,
                   batch.claim.token.value());
    } else {
      spdlog::error(
          "worker {}: claim {}: delivery reports overdue past the lease; this worker "
          "is stuck and reports itself unhealthy",
          settings_.index, batch.claim.token.value());
    }
  }
}

void Worker::consult_outage_gate(const InFlightBatch& batch, SettlementPlan& plan) {
  const std::vector<DeliveryOutcome>& outcomes = batch.deliveries->outcomes();
  const auto now = steady_clock::now();
  std::set<std::string> delivered_topics;
  for (size_t i : plan.delivered)
    delivered_topics.insert(outcomes[i].topic);
  for (const std::string& topic : delivered_topics)
    outage_gate_.delivered_to(topic);
  size_t outage = plan.outage.size();
  for (const auto& [destination, indices] : plan.held)
    outage += indices.size();
  outage_gate_.settled(OutageGate::Settled{.delivered = plan.delivered.size(),
                                           .outage = outage,
                                           .on_paused_partitions = plan.held_on_paused,
                                           .outage_error = describe_outage(plan, outcomes),
                                           .probe = batch.probe,
                                           .claimed_at = batch.claimed_at},
                       now);
  // A topic unknown for less than its grace may be about to appear: retry without an attempt.
  // Past the grace it is the event's own trouble: FAILED with the reason.
  for (size_t i : plan.unknown_topic) {
    const OutageGate::UnknownTopicVerdict verdict =
        outage_gate_.unknown_topic(outcomes[i].topic, now);
    if (!verdict.give_up) {
      plan.deferred.push_back(i);
      plan.defer_for = plan.defer_for.count() == 0 ? verdict.retry_in
                                                   : std::min(plan.defer_for, verdict.retry_in);
      continue;
    }
    plan.failures[PublishFailure{true, outcomes[i].error + " (topic " + outcomes[i].topic +
                                           " unknown for " + format_pause(verdict.unknown_for) +
                                           ", longer than relay.unknown_topic_grace " +
                                           format_pause(outage_gate_.unknown_topic_grace()) + ")"}]
        .push_back(i);
  }
}

void Worker::report_deliveries(const InFlightBatch& batch, const SettlementPlan& plan) {
  const std::vector<OutboxEvent>& events = batch.claim.events;
  const std::vector<DeliveryOutcome>& outcomes = batch.deliveries->outcomes();
  for (size_t i : plan.delivered) {
    const double since_claim =
        std::chrono::duration<double>(outcomes[i].reported_at - batch.claimed_at).count();
    stats_.claim_to_ack_seconds.Observe(since_claim);
    stats_.created_to_ack_seconds.Observe(static_cast<double>(events[i].age_at_claim_us) / 1e6 +
                                          since_claim);
  }
  for (size_t i : plan.unconfirmed) {
    stats_.count_failure(outcomes[i].error_name());
  }
  for (size_t i : plan.released) {
    spdlog::info("event {} {} (topic {}): {}; back to PENDING, no attempt counted",
                 events[i].event_id, describe(outcomes[i].status), outcomes[i].topic,
                 outcomes[i].error);
  }
  // An outage fails thousands of events alike: one line per batch, each event at debug (the
  // line an audit of duplicates reads: a delivery the cluster did not confirm may still be
  // stored, and then its resend is a second copy).
  for (size_t i : plan.outage) {
    spdlog::debug("event {} {} (topic {}[{}]): {}; back to PENDING, no attempt counted (outage)",
                  events[i].event_id, describe(outcomes[i].status), outcomes[i].topic,
                  outcomes[i].partition, outcomes[i].error);
  }
  if (!plan.outage.empty()) {
    spdlog::warn(
        "worker {}: claim {}: {} events failed the cluster's way ({}), none of their "
        "partitions got a delivery through: back to PENDING, no attempt counted: {}",
        settings_.index, batch.claim.token.value(), plan.outage.size(),
        describe_outage(plan, outcomes), some_ids(ids_at(events, plan.outage)));
  }
  for (const auto& [destination, indices] : plan.held) {
    for (size_t i : indices) {
      spdlog::debug("event {} {} ({}): {}; held for its paused partition, no attempt counted",
                    events[i].event_id, describe(outcomes[i].status), destination.name(),
                    outcomes[i].error);
    }
    spdlog::warn(
        "worker {}: claim {}: {} events failed the cluster's way on {} ({}), none of that "
        "partition's got a delivery through: held for the paused partition, no attempt "
        "counted: {}",
        settings_.index, batch.claim.token.value(), indices.size(), destination.name(),
        outcomes[indices.front()].error, some_ids(ids_at(events, indices)));
  }
  for (size_t i : plan.deferred) {
    spdlog::info("event {}: {} (topic {} not known yet); retrying in {}, no attempt counted",
                 events[i].event_id, outcomes[i].error, outcomes[i].topic,
                 format_pause(plan.defer_for));
  }
  if (plan.unconfirmed.empty()) return;
  stats_.deliveries_failed += plan.unconfirmed.size();
  spdlog::warn("worker {}: claim {}: {} of {} events not confirmed by the broker: {}",
               settings_.index, batch.claim.token.value(), plan.unconfirmed.size(), events.size(),
               some_ids(ids_at(events, plan.unconfirmed)));
}

template <typename Op>
auto Worker::retry_until(steady_clock::time_point until, const char* what, Op op)
    -> decltype(op(std::declval<LeaseStore&>())) {
  Backoff backoff(settings_.backoff_initial, settings_.backoff_max);
  bool tried_a_new_session = false;
  for (;;) {
    std::string error = "MySQL unreachable";
    bool session_lost = false;
    if (ensure_store()) {
      auto result = op(used_store());
      if (result) return result;
      ++stats_.db_errors;
      error = result.error().message;
      session_lost = store_->known_broken();
    }
    // A write whose session proved unusable (the connection lost, or a read-only server after
    // a failover) is tried once more at once on a new one, even past the deadline: the session
    // may have ended while the process was paused (MySQL ends a session silent for the lease,
    // claim_session_idle.hpp), and the lease by our clock is the conservative one. Each write
    // is conditioned on the row still being leased to this claim (status and lease_owner), so
    // the retry is refused, and said so, if the row changed hands, and lands if nobody took it
    // over: no needless duplicate.
    if (session_lost && !tried_a_new_session) {
      tried_a_new_session = true;
      spdlog::warn("worker {}: {} failed ({}); trying once more on a new session", settings_.index,
                   what, error);
      continue;
    }
    // The drain deadline is read each round: a SIGTERM during an outage shortens the retries.
    const auto deadline = std::min(until, drain_.get());
    const auto now = steady_clock::now();
    if (now >= deadline) return Error{error};
    const Micros pause =
        std::min<Micros>(backoff.next(), std::chrono::duration_cast<Micros>(deadline - now));
    spdlog::warn("worker {}: {} failed ({}); retrying in {}", settings_.index, what, error,
                 format_pause(pause));
    // Not interruptible by the stop request: settling is what a drain waits for.
    health_.tick(settings_.index);
    std::this_thread::sleep_for(pause);
  }
}

AppliedSettlement Worker::apply(const InFlightBatch& batch, const SettlementPlan& plan) {
  const std::vector<OutboxEvent>& events = batch.claim.events;
  const LeaseToken& token = batch.claim.token;
  AppliedSettlement applied;
  if (!plan.delivered.empty()) {
    std::vector<std::string> ids = ids_at(events, plan.delivered);
    Outcome<MarkResult> marked =
        retry_until(batch.lease_ends, "mark published",
                    [&](LeaseStore& store) { return store.mark_published(token, ids); });
    if (marked) wake_successors(ids);
    applied.mark.emplace(AppliedWrite<MarkResult>{std::move(ids), std::move(marked)});
  }
  if (!plan.released.empty() || !plan.outage.empty()) {
    std::vector<std::string> ids = ids_at(events, plan.released);
    for (std::string& id : ids_at(events, plan.outage))
      ids.push_back(std::move(id));
    Outcome<LeaseUpdateResult> released = retry_until(
        batch.lease_ends, "release", [&](LeaseStore& store) { return store.release(token, ids); });
    applied.release.emplace(AppliedWrite<LeaseUpdateResult>{std::move(ids), std::move(released)});
  }
  if (!plan.deferred.empty()) {
    std::vector<std::string> ids = ids_at(events, plan.deferred);
    const DeliveryOutcome& first = batch.deliveries->outcomes()[plan.deferred.front()];
    const std::string error = first.error + " (topic " + first.topic + " not known yet)";
    Outcome<LeaseUpdateResult> deferred = retry_until(
        batch.lease_ends, "defer",
        [&](LeaseStore& store) { return store.defer(token, ids, plan.defer_for, error); });
    applied.deferral.emplace(AppliedWrite<LeaseUpdateResult>{std::move(ids), std::move(deferred)});
  }
  for (const auto& [destination, indices] : plan.held) {
    std::vector<std::string> ids = ids_at(events, indices);
    const std::string error =
        PausedPartitions::kErrorPrefix + holds_.reason(destination, steady_clock::now());
    // Outside the lambda: clang before 16 cannot capture a structured binding.
    const Micros recheck = holds_.recheck_for(destination, steady_clock::now());
    Outcome<LeaseUpdateResult> held =
        retry_until(batch.lease_ends, "hold for a paused partition",
                    [&](LeaseStore& store) { return store.defer(token, ids, recheck, error); });
    applied.held.push_back(AppliedWrite<LeaseUpdateResult>{std::move(ids), std::move(held)});
  }
  for (const auto& [stored, indices] : plan.failures) {
    std::vector<std::string> ids = ids_at(events, indices);
    const PublishFailure& failure = stored;  // clang before 16 cannot capture a structured binding
    Outcome<LeaseUpdateResult> recorded =
        retry_until(batch.lease_ends, "record failure",
                    [&](LeaseStore& store) { return store.record_failure(token, ids, failure); });
    applied.failures.push_back(
        AppliedWrite<LeaseUpdateResult>{std::move(ids), std::move(recorded)});
  }
  return applied;
}

void Worker::report_settlement(const InFlightBatch& batch, const SettlementPlan& plan,
                               const AppliedSettlement& applied) {
  if (applied.mark) report_mark(batch, *applied.mark);
  if (spdlog::should_log(spdlog::level::debug)) {
    const std::vector<DeliveryOutcome>& outcomes = batch.deliveries->outcomes();
    for (size_t i : plan.delivered) {
      spdlog::debug("event {} delivered to {}[{}]@{}, claim {}", batch.claim.events[i].event_id,
                    outcomes[i].topic, outcomes[i].partition, outcomes[i].offset,
                    batch.claim.token.value());
    }
  }
  if (applied.release) report_release(batch, *applied.release);
  if (applied.deferral) report_deferral(batch, *applied.deferral);
  for (const AppliedWrite<LeaseUpdateResult>& held : applied.held) {
    report_deferral(batch, held);
    if (held.result) stats_.events_held += held.result.value().changed;
  }
  auto recorded = applied.failures.begin();
  for (const auto& [failure, indices] : plan.failures)
    report_failure(batch, indices, failure, *recorded++);
}

void Worker::report_mark(const InFlightBatch& batch, const AppliedWrite<MarkResult>& mark) {
  const std::string& claim = batch.claim.token.value();
  if (!mark.result) {
    stats_.marks_abandoned += mark.ids.size();
    spdlog::error(
        "worker {}: claim {}: {} events confirmed by the broker could not be marked PUBLISHED "
        "({}); they stay leased until the lease ends and are then published again: {}",
        settings_.index, claim, mark.ids.size(), mark.result.error().message, some_ids(mark.ids));
    return;
  }
  const std::vector<std::string>& refused = mark.result.value().refused;
  stats_.events_published += mark.ids.size() - refused.size();
  stats_.marks_refused += refused.size();
  for (const std::string& id : refused) {
    spdlog::warn(
        "event {}: delivered, but claim {} no longer holds its lease (it expired and another "
        "claim took the row); not marked: the new owner publishes it again (expected duplicate)",
        id, claim);
  }
}

void Worker::report_release(const InFlightBatch& batch,
                            const AppliedWrite<LeaseUpdateResult>& release) {
  const std::string& claim = batch.claim.token.value();
  if (!release.result) {
    spdlog::error(
        "worker {}: claim {}: could not release {} unconfirmed events ({}); they are claimed "
        "again when their lease ends: {}",
        settings_.index, claim, release.ids.size(), release.result.error().message,
        some_ids(release.ids));
    return;
  }
  stats_.events_released += release.result.value().changed;
  for (const std::string& id : release.result.value().no_longer_leased) {
    spdlog::info("event {}: not released, claim {} no longer holds its lease", id, claim);
  }
}

void Worker::report_deferral(const InFlightBatch& batch,
                             const AppliedWrite<LeaseUpdateResult>& deferral) {
  const std::string& claim = batch.claim.token.value();
  if (!deferral.result) {
    spdlog::error(
        "worker {}: claim {}: could not defer {} events ({}); they are claimed again when "
        "their lease ends: {}",
        settings_.index, claim, deferral.ids.size(), deferral.result.error().message,
        some_ids(deferral.ids));
    return;
  }
  for (const std::string& id : deferral.result.value().no_longer_leased) {
    spdlog::info("event {}: not deferred, claim {} no longer holds its lease", id, claim);
  }
}

void Worker::report_failure(const InFlightBatch& batch, const std::vector<size_t>& indices,
                            const PublishFailure& failure,
                            const AppliedWrite<LeaseUpdateResult>& recorded) {
  const std::string& claim = batch.claim.token.value();
  if (!recorded.result) {
    spdlog::error(
        "worker {}: claim {}: could not record the failure of {} events ({}); they are claimed "
        "again when their lease ends: {}",
        settings_.index, claim, recorded.ids.size(), recorded.result.error().message,
        some_ids(recorded.ids));
    return;
  }
  // Logged and counted only now that the row says so. The SQL decides RETRY or FAILED from
  // the row's attempts; these lines repeat its rule with the attempts read at claim time,
  // which no one else changes while the claim holds the lease.
  const std::vector<std::string>& not_ours = recorded.result.value().no_longer_leased;
  for (size_t i : indices) {
    const OutboxEvent& event = batch.claim.events[i];
    if (std::find(not_ours.begin(), not_ours.end(), event.event_id) != not_ours.end()) {
      spdlog::info("event {}: failure not recorded, claim {} no longer holds its lease",
                   event.event_id, claim);
      continue;
    }
    const DeliveryOutcome& outcome = batch.deliveries->outcomes()[i];
    const int attempt = event.attempts + 1;
    if (failure.permanent) {
      ++stats_.events_failed;
      spdlog::error("event {} FAILED: {} (topic {}): {}; it stays FAILED until requeued",
                    event.event_id, describe(outcome.status), outcome.topic, failure.error);
    } else if (attempt >= settings_.max_attempts) {
      ++stats_.events_failed;
      spdlog::error("event {} FAILED after {} attempts: {} (topic {}): {}", event.event_id, attempt,
                    describe(outcome.status), outcome.topic, failure.error);
    } else {
      ++stats_.events_retrying;
      spdlog::info("event {} attempt {} of {}: {} (topic {}): {}; retrying after backoff",
                   event.event_id, attempt, settings_.max_attempts, describe(outcome.status),
                   outcome.topic, failure.error);
    }
  }
}

}  // namespace outbox
