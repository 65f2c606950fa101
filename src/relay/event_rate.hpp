#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>

#include "config/duration.hpp"

namespace outbox {

// relay.max_events_per_second: the pace of the whole process, shared by its workers, so a
// relay returning from a long outage (or let loose on a deep backlog) cannot flood the brokers
// and the consumers. A token bucket holding up to one second of events: a claim asks for its
// batch size and is granted what the bucket holds; events granted but not sent (a short batch)
// go back. 0 is unlimited, the default (then a claim costs one uncontended lock here).
class EventRate {
 public:
  using Clock = std::chrono::steady_clock;

  struct Grant {
    size_t events = 0;  // how many the claim may take now
    Micros retry_in{};  // when none: the time until one is due
  };

  explicit EventRate(uint64_t per_second = 0);

  // SIGHUP may change it; 0 lifts the limit. The bucket starts full at the new rate.
  void set_rate(uint64_t per_second, Clock::time_point now);
  uint64_t rate() const;

  Grant take(size_t wanted, Clock::time_point now);
  void give_back(size_t events);

  // Time workers spent waiting for the limit (outbox_relay_rate_limited_seconds_total), and
  // whether it held a claim back within the last second (the progress line says so).
  void waited(Micros pause);
  double limited_seconds() const;
  bool limiting(Clock::time_point now) const;

 private:
  void refill(Clock::time_point now);

  mutable std::mutex mutex_;
  uint64_t rate_ = 0;
  double tokens_ = 0;
  Clock::time_point refilled_{};
  Clock::time_point last_refused_{};
  bool refused_ = false;
  Micros waited_{};
};

}  // namespace outbox
