// The worker's loop and its claim side; settling a batch is in worker_settlement.cpp.
#include "worker.hpp"

#include <spdlog/spdlog.h>

#include "interruptible_sleep.hpp"
#include "lease_store/claim_session_idle.hpp"
#include "observe/health_board.hpp"
#include "publish/send_batch.hpp"
#include "publish/unsent_batch.hpp"
#include "worker_log.hpp"

namespace outbox {
namespace {

using std::chrono::steady_clock;

double seconds_since(steady_clock::time_point start) {
  return std::chrono::duration<double>(steady_clock::now() - start).count();
}

}  // namespace

Worker::Worker(WorkerSettings settings, LeaseStoreFactory open_store, WorkerShared shared)
    : settings_(std::move(settings)),
      open_store_(std::move(open_store)),
      publisher_(shared.publisher),
      stats_(shared.stats),
      drain_(shared.drain),
      polls_(shared.polls),
      health_(shared.health),
      batch_size_(shared.batch_size),
      outage_gate_(shared.outage_gate),
      bytes_(shared.bytes),
      holds_(shared.holds),
      rate_(shared.rate),
      pauses_(shared.pauses),
      backoff_(settings_.backoff_initial, settings_.backoff_max) {}

bool Worker::ensure_store() {
  const auto now = steady_clock::now();
  const bool idle_too_long = now - store_used_at_ > claim_session_reuse_limit(settings_.lease);
  if (store_ && !store_->known_broken() && !idle_too_long) return true;
  // Replaced quietly when only idle: the server may have ended it (claim_session_idle.hpp).
  const bool was_connected = store_ != nullptr && store_->known_broken();
  store_.reset();
  Outcome<std::unique_ptr<LeaseStore>> opened = open_store_();
  if (!opened) {
    ++stats_.db_errors;
    spdlog::warn("worker {}: {}", settings_.index, opened.error().message);
    // The message names the server and the account: the log line above has it, /readyz not.
    health_.set_problem(settings_.index, "mysql: cannot open a session (details in the log)");
    return false;
  }
  store_ = std::move(opened).value();
  store_used_at_ = steady_clock::now();
  if (was_connected) spdlog::info("worker {}: reconnected to MySQL", settings_.index);
  return true;
}

LeaseStore& Worker::used_store() {
  store_used_at_ = steady_clock::now();
  return *store_;
}

void Worker::run(const std::stop_token& stop) {
  while (!stop.stop_requested()) {
    health_.tick(settings_.index);
    if (holds_.any_paused()) wake_due_probes();
    const ClaimAttempt attempt = try_claim();
    take_step(next_step(attempt.result, !in_flight_.empty()), attempt, stop);
  }
  settle_all();
}

void Worker::take_step(Step step, const ClaimAttempt& attempt, const std::stop_token& stop) {
  switch (step) {
    case Step::kClaim:
      return;
    case Step::kSettleOldest:
      if (attempt.error) {
        // Its marks retry on their own.
        spdlog::warn("worker {}: {}; settling the batches in flight first", settings_.index,
                     attempt.error->message);
      }
      settle_oldest();
      return;
    case Step::kSettleAll:
      settle_all();
      return;
    case Step::kBackOff:
      back_off(attempt, stop);
      return;
    case Step::kIdle:
      idle(stop);
      return;
  }
}

Worker::ClaimAttempt Worker::try_claim() {
  if (const std::optional<ClaimResult> not_now = reason_not_to_claim()) return {*not_now};
  // During an outage the gate lets one worker at a time send a small probe.
  using Kind = OutageGate::Admission::Kind;
  const OutageGate::Admission admission =
      outage_gate_.admit(batch_size_.load(), steady_clock::now());
  if (admission.kind == Kind::kWait) return {ClaimResult::kBrokerDown};
  const bool probe = admission.kind == Kind::kProbe;
  // relay.max_events_per_second: a claim takes no more events than the process's pace allows.
  const EventRate::Grant grant = rate_.take(admission.limit, steady_clock::now());
  if (grant.events == 0) {
    if (probe) outage_gate_.probe_not_sent(steady_clock::now());
    ++stats_.rate_limited;
    return {ClaimResult::kRateLimited, std::nullopt, grant.retry_in};
  }
  // Payload bytes held by this process stay under relay.max_in_flight_bytes.
  ByteBudget::Allowance allowance = bytes_.reserve(settings_.claim_bytes);
  if (allowance.held.bytes() == 0 && !allowance.alone) {
    if (probe) outage_gate_.probe_not_sent(steady_clock::now());
    rate_.give_back(grant.events);
    return {ClaimResult::kBudgetSpent};
  }
  claimed_events_ = 0;
  ClaimAttempt attempt = claim_and_send(grant.events, probe, std::move(allowance));
  // What the rate granted and the claim did not send (a short batch, held or parked rows).
  rate_.give_back(grant.events - std::min(grant.events, claimed_events_));
  return attempt;
}

std::optional<ClaimResult> Worker::reason_not_to_claim() {
  if (in_flight_.size() >= settings_.pipeline_depth) return ClaimResult::kPipelineFull;
  if (!ensure_store()) return ClaimResult::kDatabaseDown;
  // Not while no broker answers: the rows would only be leased to wait out their timeout.
  if (!publisher_.ready()) return ClaimResult::kBrokerDown;
  return std::nullopt;
}

Worker::ClaimAttempt Worker::claim_and_send(size_t limit, bool probe,
                                            ByteBudget::Allowance allowance) {
  const auto claim_started = steady_clock::now();
  const LeaseToken token(settings_.claimant, settings_.index, ++claim_sequence_);
  Outcome<ClaimedBatch> claimed = used_store().claim(
      token, limit, settings_.lease, PayloadAllowance{allowance.held.bytes(), allowance.alone});
  stats_.claim_seconds.Observe(seconds_since(claim_started));
  // A session-level error (connection lost, read-only server) makes this worker not ready
  // until a claim works again; an error of the claim itself does not.
  health_.set_problem(settings_.index, store_->session_problem());
  // What the rows took stays held until the batch settles; the rest goes back now.
  allowance.held.resize(claimed ? claimed.value().budget_bytes : 0);
  if (!claimed) {
    ++stats_.db_errors;
    if (probe) outage_gate_.probe_not_sent(steady_clock::now());
    return {ClaimResult::kFailed, claimed.error(), backoff_.next()};
  }
  backoff_.reset();
  ClaimedBatch& batch = claimed.value();
  const HeldAtClaim at_claim =
      holds_.any_paused() || pauses_.any() ? hold_paused(batch) : HeldAtClaim{};
  const size_t held = at_claim.held;
  if (held > 0) allowance.held.resize(batch.budget_bytes);
  if (probe && at_claim.probes > 0 && at_claim.probes == batch.events.size()) {
    // The outage gate's probe found nothing but paused partitions' rows: their own probes go
    // as an ordinary batch, and the gate's next probe reads on at once for a partition that
    // is not paused (a sick topic's deep backlog must not hide the healthy ones behind it).
    outage_gate_.probe_not_sent(steady_clock::now(), true);
    probe = false;
  }
  if (!batch.parked.empty()) {
    stats_.events_parked += batch.parked.size();
    spdlog::debug("worker {}: claim {} parked {} events behind older ones of their aggregate",
                  settings_.index, token.value(), batch.parked.size());
  }
  if (!batch.failed_unsettled_notes.empty()) {
    stats_.events_failed += batch.failed_unsettled_notes.size();
    spdlog::error(
        "worker {}: claim {} parked {} events as FAILED whose lease kept expiring unsettled "
        "(relay.max_lease_expiries {}): {}",
        settings_.index, token.value(), batch.failed_unsettled_notes.size(),
        settings_.max_lease_expiries, some_ids(batch.failed_unsettled_notes));
  }
  stats_.claim_waits += batch.waiting;
  stats_.events_chained += batch.chained;
  if (batch.events.empty()) {
    // Only paused partitions' events, or versions parked behind them: the next probe (or
    // claim) comes at once, for the rows behind them. Each such row is written once (held or
    // parked), so the sweep ends; a probe that found nothing at all waits its interval.
    if (probe) {
      outage_gate_.probe_not_sent(steady_clock::now(),
                                  held > 0 || (holds_.any_paused() && !batch.parked.empty()));
    }
    if (held > 0) {
      if (!batch.parked.empty()) wake_successors(batch.parked);
      empty_streak_ = 0;
      return {ClaimResult::kOnlyParked};
    }
    if (!batch.parked.empty()) {
      wake_successors(batch.parked);
      return {ClaimResult::kOnlyParked};
    }
    if (batch.waiting == 0) return {ClaimResult::kNothing};
    // Work is there, behind events in flight: poll at the base interval, not the idle one.
    empty_streak_ = 0;
    polls_.found_work();
    return {ClaimResult::kOnlyWaiting};
  }
  empty_streak_ = 0;
  polls_.found_work();
  report_claim(batch);
  // Rows left waiting filled the scan's window too: a short batch of them is no drained
  // backlog.
  const size_t rows_taken = batch.events.size() + held + batch.parked.size() + batch.waiting;
  claimed_events_ = batch.events.size();
  send(std::move(batch), claim_started, probe, std::move(allowance.held));
  return {rows_taken < limit ? ClaimResult::kShortBatch : ClaimResult::kFullBatch};
}

void Worker::report_claim(const ClaimedBatch& batch) {
  const std::string& claim = batch.token.value();
  if (!batch.reclaimed_notes.empty()) {
    stats_.leases_reclaimed += batch.reclaimed_notes.size();
    spdlog::info("worker {}: claim {} took over {} expired leases: {}", settings_.index, claim,
                 batch.reclaimed_notes.size(), some_ids(batch.reclaimed_notes));
  }
  if (batch.retried > 0) {
    spdlog::info("worker {}: claim {} retries {} events whose backoff ended", settings_.index,
                 claim, batch.retried);
  }
  const size_t count = batch.events.size();
  ++stats_.claims;
  stats_.events_claimed += count;
  stats_.events_in_flight += static_cast<int64_t>(count);
  spdlog::debug("worker {}: claim {} leased {} events", settings_.index, claim, count);
  for (const OutboxEvent& event : batch.events) {
    spdlog::debug("event {} PUBLISHING: claim {}, attempt {}", event.event_id, claim,
                  event.attempts + 1);
  }
}

void Worker::send(ClaimedBatch batch, steady_clock::time_point claimed_at, bool probe,
                  ByteBudget::Hold bytes) {
  // Reports come within delivery_timeout of each hand-over: handing over no later than this
  // keeps the last report (and the mark after it) inside the lease, however long the
  // producer's queue stays full. Without the bound a report could come about twice the
  // timeout after the claim, after another relay took the rows over and sent them again.
  const auto lease_ends = claimed_at + settings_.lease;
  const Micros timeout = publisher_.delivery_timeout();
  // Config validation keeps the lease above the timeout; an unbounded timeout (0) gets none.
  const auto enqueue_by =
      timeout + kLeaseMargin < settings_.lease
          ? lease_ends - kLeaseMargin - std::chrono::duration_cast<steady_clock::duration>(timeout)
          : claimed_at;
  std::unique_ptr<InFlightDeliveries> deliveries;
  try {
    // A full producer queue is a legitimate wait: it ticks.
    std::function<void()> tick = [this] { health_.tick(settings_.index); };
    deliveries = send_batch(publisher_, batch.events, batch.after, enqueue_by,
                            lease_ends - kLeaseMargin, std::move(tick));
  } catch (const std::exception& e) {
    // Not the end of the process: the batch settles like any other, every event released
    // (never marked), its bytes and its place in flight given back.
    spdlog::error("worker {}: claim {}: send() failed ({}); its {} events go back to PENDING",
                  settings_.index, batch.token.value(), e.what(), batch.events.size());
    deliveries = std::make_unique<UnsentBatch>(batch.events.size(),
                                               std::string("send() failed: ") + e.what());
  }
  // After the send: the claimed batch's lease is running; the wake is best effort.
  if (!batch.parked.empty()) wake_successors(batch.parked);
  in_flight_.push_back(InFlightBatch{std::move(batch), std::move(deliveries), claimed_at,
                                     lease_ends, probe, std::move(bytes)});
}

void Worker::back_off(const ClaimAttempt& attempt, const std::stop_token& stop) {
  if (attempt.result == ClaimResult::kRateLimited) {
    // Until the process's pace allows the next event, and not on the growing backoff.
    rate_.waited(attempt.retry_pause);
    sleep_unless_stopped(stop, attempt.retry_pause);
    return;
  }
  if (!attempt.error) {
    // No store (ensure_store said why) or no broker: wait without spinning.
    sleep_unless_stopped(stop, backoff_.next());
    return;
  }
  spdlog::warn("worker {}: {}; retrying in {}", settings_.index, attempt.error->message,
               format_pause(attempt.retry_pause));
  sleep_unless_stopped(stop, attempt.retry_pause);
}

void Worker::idle(const std::stop_token& stop) {
  if (empty_streak_++ == 0) streak_started_ = steady_clock::now();
  sleep_unless_stopped(stop, polls_.pause(empty_streak_, streak_started_));
}

void Worker::wake_successors(const std::vector<std::string>& ids) {
  // One attempt, no retries: the batches waiting behind this call matter more, and every
  // BLOCKED row is rechecked on its own (idx_outbox_due) anyway, only later.
  if (!ensure_store()) return;
  Outcome<size_t> woken = used_store().wake_successors(ids);
  if (!woken) {
    ++stats_.db_errors;
    spdlog::warn("worker {}: {}; the blocked events are woken by their recheck instead",
                 settings_.index, woken.error().message);
  }
}

}  // namespace outbox
