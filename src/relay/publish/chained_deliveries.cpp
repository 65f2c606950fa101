#include "publish/chained_deliveries.hpp"

#include <librdkafka/rdkafka.h>
#include <spdlog/spdlog.h>

#include <exception>

namespace outbox {
namespace {

using std::chrono::steady_clock;

}  // namespace

ChainedDeliveries::ChainedDeliveries(Publisher& publisher, const std::vector<OutboxEvent>& events,
                                     const std::vector<size_t>& after,
                                     steady_clock::time_point enqueue_by,
                                     std::function<void()> still_waiting)
    : DrivenDeliveries(events.size()),
      publisher_(publisher),
      after_(after),
      next_(events.size()),
      enqueue_by_(enqueue_by),
      still_waiting_(std::move(still_waiting)) {
  events_.reserve(events.size());
  std::vector<size_t> first;
  for (size_t i = 0; i < events.size(); ++i) {
    events_.push_back(&events[i]);
    next_[i] = i;
    if (after[i] == i) {
      first.push_back(i);
    } else {
      next_[after[i]] = i;
    }
  }
  send_wave(std::move(first));
  if (!current_) {
    finish();
    return;
  }
  start([this] { drive(); });
}

ChainedDeliveries::~ChainedDeliveries() {
  join();
}

void ChainedDeliveries::not_sent(size_t index, const std::string& why) {
  for (size_t i = index;; i = next_[i]) {
    DeliveryOutcome& outcome = outcomes_[i];
    outcome.status = DeliveryStatus::kNotDelivered;
    outcome.error_code = RD_KAFKA_RESP_ERR__PREV_IN_PROGRESS;
    outcome.error =
        std::string(rd_kafka_err2name(RD_KAFKA_RESP_ERR__PREV_IN_PROGRESS)) + ": not sent: " + why;
    outcome.reported_at = steady_clock::now();
    if (next_[i] == i) break;
  }
}

void ChainedDeliveries::send_wave(std::vector<size_t> wave) {
  wave_ = std::move(wave);
  current_.reset();
  if (wave_.empty()) return;
  if (steady_clock::now() >= enqueue_by_) {
    // Reports of a later hand-over could come after the lease.
    for (size_t i : wave_) {
      not_sent(i, "the claim's enqueue deadline passed before event " +
                      events_[after_[i]]->event_id + " before it was acknowledged");
    }
    wave_.clear();
    return;
  }
  std::vector<const OutboxEvent*> each;
  each.reserve(wave_.size());
  for (size_t i : wave_)
    each.push_back(events_[i]);
  ++waves_sent_;
  try {
    current_ = publisher_.send_each(each, enqueue_by_, still_waiting_);
  } catch (const std::exception& e) {
    // Nothing of this wave is left with the producer (Publisher::send's contract), but what it
    // did before throwing is unknown: maybe delivered, never marked; nothing behind it is sent.
    spdlog::error("send() of a chained wave of {} events failed: {}", wave_.size(), e.what());
    for (size_t i : wave_) {
      DeliveryOutcome& outcome = outcomes_[i];
      outcome.status = DeliveryStatus::kMaybeDelivered;
      outcome.error_code = RD_KAFKA_RESP_ERR__FAIL;
      outcome.error =
          std::string(rd_kafka_err2name(RD_KAFKA_RESP_ERR__FAIL)) + ": send() failed: " + e.what();
      outcome.reported_at = steady_clock::now();
      if (next_[i] != i) {
        not_sent(next_[i], "event " + events_[i]->event_id + " before it was not acknowledged");
      }
    }
    wave_.clear();
  }
}

std::vector<size_t> ChainedDeliveries::settle_wave() {
  std::vector<size_t> next_wave;
  const std::vector<DeliveryOutcome>& reported = current_->outcomes();
  for (size_t k = 0; k < wave_.size(); ++k) {
    const size_t i = wave_[k];
    outcomes_[i] = reported[k];
    if (next_[i] == i) continue;
    if (reported[k].status == DeliveryStatus::kDelivered) {
      next_wave.push_back(next_[i]);
    } else {
      not_sent(next_[i], "event " + events_[i]->event_id + " before it was not acknowledged (" +
                             reported[k].error + ")");
    }
  }
  return next_wave;
}

void ChainedDeliveries::drive() {
  // A slice, not a far deadline: librdkafka bounds every report (message.timeout.ms), and a
  // condition variable's wait until time_point::max() overflows.
  constexpr std::chrono::seconds kSlice{1};
  while (current_) {
    if (!current_->wait_until(steady_clock::now() + kSlice)) continue;
    send_wave(settle_wave());
  }
  finish();
}

}  // namespace outbox
