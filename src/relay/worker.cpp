#include "worker.hpp"

#include <spdlog/spdlog.h>

#include <librdkafka/rdkafka.h>

#include <algorithm>
#include <map>
#include <thread>

#include "failpoint.hpp"
#include "failure_policy.hpp"
#include "health_board.hpp"
#include "interruptible_sleep.hpp"

namespace outbox {
namespace {

using std::chrono::steady_clock;

// How long to wait for a batch's reports before saying so in the log. librdkafka bounds the
// wait itself (message.timeout.ms), so this only makes a long wait visible.
constexpr std::chrono::seconds kReportWaitNotice{10};
// Lines naming individual event ids in one summary, before "and N more".
constexpr size_t kIdsPerLogLine = 10;

std::string some_ids(const std::vector<std::string>& ids) {
  std::string out;
  for (size_t i = 0; i < ids.size() && i < kIdsPerLogLine; ++i)
    out += (i ? ", " : "") + ids[i];
  if (ids.size() > kIdsPerLogLine)
    out += " and " + std::to_string(ids.size() - kIdsPerLogLine) + " more";
  return out;
}

const char* describe(DeliveryStatus status) {
  switch (status) {
    case DeliveryStatus::kDelivered:
      return "delivered";
    case DeliveryStatus::kNotDelivered:
      return "not delivered";
    case DeliveryStatus::kMaybeDelivered:
      return "maybe delivered";
  }
  return "?";
}

}  // namespace

Worker::Worker(WorkerSettings settings, ClaimStoreFactory open_store, WorkerShared shared)
    : settings_(std::move(settings)),
      open_store_(std::move(open_store)),
      publisher_(shared.publisher),
      stats_(shared.stats),
      drain_(shared.drain),
      polls_(shared.polls),
      health_(shared.health),
      batch_size_(shared.batch_size),
      backoff_(settings_.backoff_initial, settings_.backoff_max) {}

bool Worker::ensure_store() {
  if (store_ && !store_->known_broken()) return true;
  const bool was_connected = store_ != nullptr;
  store_.reset();
  Outcome<std::unique_ptr<ClaimStore>> opened = open_store_();
  if (!opened) {
    ++stats_.db_errors;
    spdlog::warn("worker {}: {}", settings_.index, opened.error().message);
    return false;
  }
  store_ = std::move(opened).value();
  if (was_connected) spdlog::info("worker {}: reconnected to MySQL", settings_.index);
  return true;
}

void Worker::run(const std::stop_token& stop) {
  while (!stop.stop_requested()) {
    health_.tick(settings_.index);
    if (in_flight_.size() >= settings_.pipeline_depth) {
      settle_oldest();
      continue;
    }
    if (!ensure_store() || !publisher_.ready()) {
      // Cannot claim now. Finish what is in flight first (it may still be markable), then
      // back off instead of spinning.
      if (!in_flight_.empty()) {
        settle_oldest();
        continue;
      }
      sleep_unless_stopped(stop, backoff_.next());
      continue;
    }
    const auto claim_started = steady_clock::now();
    const size_t batch_size = batch_size_.load();
    const LeaseToken token(settings_.claimant, settings_.index, ++claim_sequence_);
    Outcome<ClaimedBatch> claimed = store_->claim(token, batch_size, settings_.lease);
    stats_.claim_seconds.Observe(
        std::chrono::duration<double>(steady_clock::now() - claim_started).count());
    health_.set_database_ok(!store_->known_broken());
    if (!claimed) {
      ++stats_.db_errors;
      const Micros pause = backoff_.next();
      if (!in_flight_.empty()) {
        // Finish what is in flight first (its marks retry on their own).
        spdlog::warn("worker {}: {}; settling the batches in flight first", settings_.index,
                     claimed.error().message);
        settle_oldest();
        continue;
      }
      spdlog::warn("worker {}: {}; retrying in {}", settings_.index, claimed.error().message,
                   format_pause(pause));
      sleep_unless_stopped(stop, pause);
      continue;
    }
    backoff_.reset();
    ClaimedBatch& batch = claimed.value();
    if (!batch.parked.empty()) {
      stats_.events_parked += batch.parked.size();
      spdlog::debug("worker {}: claim {} parked {} events behind older ones of their aggregate",
                    settings_.index, token.value(), batch.parked.size());
    }
    if (batch.events.empty()) {
      if (!batch.parked.empty()) {
        wake_successors(batch.parked);
        // Rows parked as BLOCKED were not claimable, but rows behind them may be: look again.
        continue;
      }
      if (!in_flight_.empty()) {
        settle_oldest();
        continue;
      }
      if (empty_streak_++ == 0) streak_started_ = steady_clock::now();
      sleep_unless_stopped(stop, polls_.pause(empty_streak_, streak_started_));
      continue;
    }
    empty_streak_ = 0;
    polls_.found_work();
    if (!batch.reclaimed_notes.empty()) {
      stats_.leases_reclaimed += batch.reclaimed_notes.size();
      spdlog::info("worker {}: claim {} took over {} expired leases: {}", settings_.index,
                   token.value(), batch.reclaimed_notes.size(), some_ids(batch.reclaimed_notes));
    }
    if (batch.retried > 0) {
      spdlog::info("worker {}: claim {} retries {} events whose backoff ended", settings_.index,
                   token.value(), batch.retried);
    }
    const size_t count = batch.events.size();
    ++stats_.claims;
    stats_.events_claimed += count;
    stats_.events_in_flight += static_cast<int64_t>(count);
    spdlog::debug("worker {}: claim {} leased {} events", settings_.index, token.value(), count);
    for (const OutboxEvent& event : batch.events) {
      spdlog::debug("event {} PUBLISHING: claim {}, attempt {}", event.event_id, token.value(),
                    event.attempts + 1);
    }
    const size_t parked = batch.parked.size();
    std::unique_ptr<InFlightDeliveries> deliveries = publisher_.send(batch.events);
    // After the send: the claimed batch's lease is running; the wake is best effort.
    if (parked > 0) wake_successors(batch.parked);
    in_flight_.push_back(InFlightBatch{std::move(batch), std::move(deliveries), claim_started,
                                       claim_started + settings_.lease});
    // A short batch means the backlog is drained: settle now for latency instead of
    // pipelining another (most likely empty) claim.
    if (count + parked < batch_size) {
      while (!in_flight_.empty())
        settle_oldest();
    }
  }
  while (!in_flight_.empty())
    settle_oldest();
}

void Worker::settle_oldest() {
  InFlightBatch batch = std::move(in_flight_.front());
  in_flight_.pop_front();
  const std::vector<OutboxEvent>& events = batch.claim.events;
  // librdkafka reports every message within message.timeout.ms, which the lease outlasts.
  // Waiting past the lease means that promise broke: stop feeding /healthz so the process is
  // restarted (the slots the reports point at cannot be freed before they arrive).
  while (!batch.deliveries->wait_until(steady_clock::now() + kReportWaitNotice)) {
    if (steady_clock::now() < batch.lease_ends) {
      health_.tick(settings_.index);
      spdlog::warn("worker {}: claim {}: still waiting for delivery reports", settings_.index,
                   batch.claim.token.value());
    } else {
      spdlog::error(
          "worker {}: claim {}: delivery reports overdue past the lease; this worker "
          "is stuck and reports itself unhealthy",
          settings_.index, batch.claim.token.value());
    }
  }
  std::vector<std::string> delivered;
  std::vector<std::string> given_up;  // the relay's own decision: back to PENDING
  std::vector<std::string> failed;    // every id that was not delivered, for the summary
  // One statement per distinct (permanent, error): a batch usually fails for one reason. The
  // indices lead back to each event for the log lines written once the failure is stored.
  std::map<std::pair<bool, std::string>, std::vector<size_t>> failures;
  delivered.reserve(events.size());
  const std::vector<DeliveryOutcome>& outcomes = batch.deliveries->outcomes();
  for (size_t i = 0; i < events.size(); ++i) {
    const OutboxEvent& event = events[i];
    const DeliveryOutcome& outcome = outcomes[i];
    if (outcome.status == DeliveryStatus::kDelivered) {
      delivered.push_back(event.event_id);
      const double since_claim =
          std::chrono::duration<double>(outcome.reported_at - batch.claimed_at).count();
      stats_.claim_to_ack_seconds.Observe(since_claim);
      stats_.created_to_ack_seconds.Observe(static_cast<double>(event.age_at_claim_us) / 1e6 +
                                            since_claim);
      continue;
    }
    failed.push_back(event.event_id);
    stats_.count_failure(rd_kafka_err2name(static_cast<rd_kafka_resp_err_t>(outcome.error_code)));
    const FailureDisposition disposition = classify_failure(outcome.error_code);
    if (disposition == FailureDisposition::kNotAttempted) {
      given_up.push_back(event.event_id);
      spdlog::info("event {} {} (topic {}): {}; back to PENDING, no attempt counted",
                   event.event_id, describe(outcome.status), outcome.topic, outcome.error);
      continue;
    }
    failures[{disposition == FailureDisposition::kPermanent, outcome.error}].push_back(i);
  }
  if (!failed.empty()) {
    stats_.deliveries_failed += failed.size();
    spdlog::warn("worker {}: claim {}: {} of {} events not confirmed by the broker: {}",
                 settings_.index, batch.claim.token.value(), failed.size(), events.size(),
                 some_ids(failed));
  }
  // Fault injection: the window between the broker's confirmation and the mark. "kill" dies
  // here; "error" drops the batch as a crashed worker would, leaving the rows to their lease.
  if (failpoints::hit(failpoints::kRelayAfterPublishBeforeMark)) {
    spdlog::warn("worker {}: failpoint: claim {} abandoned unmarked", settings_.index,
                 batch.claim.token.value());
    stats_.events_in_flight -= static_cast<int64_t>(events.size());
    return;
  }
  mark(batch, delivered);
  if (spdlog::should_log(spdlog::level::debug)) {
    for (size_t i = 0; i < events.size(); ++i) {
      const DeliveryOutcome& outcome = outcomes[i];
      if (outcome.status != DeliveryStatus::kDelivered) continue;
      spdlog::debug("event {} delivered to {}[{}]@{}, claim {}", events[i].event_id, outcome.topic,
                    outcome.partition, outcome.offset, batch.claim.token.value());
    }
  }
  release(batch, given_up);
  for (const auto& [reason, indices] : failures) {
    record_failure(batch, indices, PublishFailure{reason.first, reason.second});
  }
  stats_.events_in_flight -= static_cast<int64_t>(events.size());
}

template <typename Op>
auto Worker::retry_until(steady_clock::time_point until, const char* what, Op op)
    -> decltype(op(std::declval<ClaimStore&>())) {
  Backoff backoff(settings_.backoff_initial, settings_.backoff_max);
  for (;;) {
    std::string error = "MySQL unreachable";
    if (ensure_store()) {
      auto result = op(*store_);
      if (result) return result;
      ++stats_.db_errors;
      error = result.error().message;
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

void Worker::mark(const InFlightBatch& batch, const std::vector<std::string>& ids) {
  if (ids.empty()) return;
  const LeaseToken& token = batch.claim.token;
  Outcome<MarkResult> marked =
      retry_until(batch.lease_ends, "mark published",
                  [&](ClaimStore& store) { return store.mark_published(token, ids); });
  if (!marked) {
    stats_.marks_abandoned += ids.size();
    spdlog::error(
        "worker {}: claim {}: {} events confirmed by the broker could not be marked PUBLISHED "
        "({}); they stay leased until the lease ends and are then published again: {}",
        settings_.index, token.value(), ids.size(), marked.error().message, some_ids(ids));
    return;
  }
  const std::vector<std::string>& lost = marked.value().refused;
  stats_.events_published += ids.size() - lost.size();
  wake_successors(ids);
  stats_.marks_refused += lost.size();
  for (const std::string& id : lost) {
    spdlog::warn(
        "event {}: delivered, but claim {} no longer holds its lease (it expired and another "
        "claim took the row); not marked: the new owner publishes it again (expected duplicate)",
        id, token.value());
  }
}

void Worker::release(const InFlightBatch& batch, const std::vector<std::string>& ids) {
  if (ids.empty()) return;
  const LeaseToken& token = batch.claim.token;
  Outcome<LeaseUpdateResult> released = retry_until(
      batch.lease_ends, "release", [&](ClaimStore& store) { return store.release(token, ids); });
  if (!released) {
    spdlog::error(
        "worker {}: claim {}: could not release {} unconfirmed events ({}); they are claimed "
        "again when their lease ends: {}",
        settings_.index, token.value(), ids.size(), released.error().message, some_ids(ids));
    return;
  }
  stats_.events_released += released.value().changed;
  for (const std::string& id : released.value().no_longer_leased) {
    spdlog::info("event {}: not released, claim {} no longer holds its lease", id, token.value());
  }
}

void Worker::wake_successors(const std::vector<std::string>& ids) {
  // One attempt, no retries: the batches waiting behind this call matter more, and every
  // BLOCKED row is rechecked on its own (idx_outbox_due) anyway, only later.
  if (!ensure_store()) return;
  Outcome<size_t> woken = store_->wake_successors(ids);
  if (!woken) {
    ++stats_.db_errors;
    spdlog::warn("worker {}: {}; the blocked events are woken by their recheck instead",
                 settings_.index, woken.error().message);
  }
}

void Worker::record_failure(const InFlightBatch& batch, const std::vector<size_t>& indices,
                            const PublishFailure& failure) {
  const LeaseToken& token = batch.claim.token;
  const std::vector<OutboxEvent>& events = batch.claim.events;
  std::vector<std::string> ids;
  for (size_t i : indices)
    ids.push_back(events[i].event_id);
  Outcome<LeaseUpdateResult> recorded =
      retry_until(batch.lease_ends, "record failure",
                  [&](ClaimStore& store) { return store.record_failure(token, ids, failure); });
  if (!recorded) {
    spdlog::error(
        "worker {}: claim {}: could not record the failure of {} events ({}); they are claimed "
        "again when their lease ends: {}",
        settings_.index, token.value(), ids.size(), recorded.error().message, some_ids(ids));
    return;
  }
  // Logged and counted only now that the row says so. The SQL decides RETRY or FAILED from
  // the row's attempts; these lines repeat its rule with the attempts read at claim time,
  // which no one else changes while the claim holds the lease.
  const std::vector<std::string>& lost = recorded.value().no_longer_leased;
  for (size_t i : indices) {
    const OutboxEvent& event = events[i];
    if (std::find(lost.begin(), lost.end(), event.event_id) != lost.end()) {
      spdlog::info("event {}: failure not recorded, claim {} no longer holds its lease",
                   event.event_id, token.value());
      continue;
    }
    const DeliveryOutcome& outcome = batch.deliveries->outcomes()[i];
    const int attempt = event.attempts + 1;
    if (failure.permanent) {
      ++stats_.events_failed;
      spdlog::error("event {} FAILED: {} (topic {}): {}; it stays FAILED until requeued",
                    event.event_id, describe(outcome.status), outcome.topic, outcome.error);
    } else if (attempt >= settings_.max_attempts) {
      ++stats_.events_failed;
      spdlog::error("event {} FAILED after {} attempts: {} (topic {}): {}", event.event_id, attempt,
                    describe(outcome.status), outcome.topic, outcome.error);
    } else {
      ++stats_.events_retrying;
      spdlog::info("event {} attempt {} of {}: {} (topic {}): {}; retrying after backoff",
                   event.event_id, attempt, settings_.max_attempts, describe(outcome.status),
                   outcome.topic, outcome.error);
    }
  }
}

}  // namespace outbox
