#include "event_rate.hpp"

#include <algorithm>
#include <cmath>

namespace outbox {

EventRate::EventRate(uint64_t per_second)
    : rate_(per_second), tokens_(static_cast<double>(per_second)), refilled_(Clock::now()) {}

void EventRate::set_rate(uint64_t per_second, Clock::time_point now) {
  std::lock_guard lock(mutex_);
  rate_ = per_second;
  tokens_ = static_cast<double>(per_second);
  refilled_ = now;
}

uint64_t EventRate::rate() const {
  std::lock_guard lock(mutex_);
  return rate_;
}

void EventRate::refill(Clock::time_point now) {
  const double elapsed = std::chrono::duration<double>(now - refilled_).count();
  if (elapsed <= 0) return;
  // At most one second's worth: a relay idle for an hour gets no hour-long burst.
  tokens_ = std::min(static_cast<double>(rate_), tokens_ + elapsed * static_cast<double>(rate_));
  refilled_ = now;
}

EventRate::Grant EventRate::take(size_t wanted, Clock::time_point now) {
  std::lock_guard lock(mutex_);
  if (rate_ == 0) return {wanted, {}};
  refill(now);
  // A claim waits for a tenth of a second's worth (or all it wants, if less): granted one
  // event as soon as one is due, the workers of a relay at its limit would claim thousands of
  // times a second, one event each.
  const double least =
      std::min(static_cast<double>(wanted), std::max(1.0, static_cast<double>(rate_) / 10));
  if (tokens_ < least) {
    refused_ = true;
    last_refused_ = now;
    return {0, std::chrono::duration_cast<Micros>(
                   std::chrono::duration<double>((least - tokens_) / static_cast<double>(rate_)))};
  }
  const size_t granted = std::min(wanted, static_cast<size_t>(std::floor(tokens_)));
  tokens_ -= static_cast<double>(granted);
  return {granted, {}};
}

void EventRate::give_back(size_t events) {
  if (events == 0) return;
  std::lock_guard lock(mutex_);
  if (rate_ == 0) return;
  tokens_ = std::min(static_cast<double>(rate_), tokens_ + static_cast<double>(events));
}

void EventRate::waited(Micros pause) {
  std::lock_guard lock(mutex_);
  waited_ += pause;
}

double EventRate::limited_seconds() const {
  std::lock_guard lock(mutex_);
  return std::chrono::duration<double>(waited_).count();
}

bool EventRate::limiting(Clock::time_point now) const {
  std::lock_guard lock(mutex_);
  return rate_ != 0 && refused_ && now - last_refused_ < std::chrono::seconds(1);
}

}  // namespace outbox
