#pragma once

#include <atomic>
#include <chrono>

namespace outbox {

// When the process's producers last had a message confirmed, as their delivery reports say,
// at the moment each report arrives. A worker settles its batches in claim order, so a batch
// confirmed early may be settled (and counted by the outage gate) only after an older batch of
// the same worker that failed whole: the reports are the first to know that the cluster works.
// Written on the producers' poll threads, read by the workers; one atomic, no lock.
class DeliveryClock {
 public:
  using Clock = std::chrono::steady_clock;

  void delivered(Clock::time_point at) {
    const Clock::rep ticks = at.time_since_epoch().count();
    Clock::rep seen = last_.load(std::memory_order_relaxed);
    while (seen < ticks && !last_.compare_exchange_weak(seen, ticks, std::memory_order_relaxed)) {
    }
  }
  // The epoch's time point while nothing was confirmed yet.
  Clock::time_point last() const {
    return Clock::time_point(Clock::duration(last_.load(std::memory_order_relaxed)));
  }

 private:
  std::atomic<Clock::rep> last_{0};
};

}  // namespace outbox
