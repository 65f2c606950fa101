#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

#include "config/duration.hpp"

namespace outbox {

// When a process's workers poll an empty outbox. The pause after an empty claim doubles from
// `base` up to `max`, so an idle relay costs a few statements a second; as soon as any worker
// of the process finds rows, every worker is back to `base`, so a burst is picked up within
// the base interval (and a busy relay never pauses: a full batch claims again at once).
class PollSchedule {
 public:
  PollSchedule(Micros base, Micros max) : base_(base.count()), max_(max.count()) {}

  void found_work() { last_work_.store(now_ticks()); }
  // SIGHUP: new intervals apply from the next pause.
  void set_intervals(Micros base, Micros max) {
    base_.store(base.count());
    max_.store(max.count());
  }

  // The pause before the next claim of a worker whose last `empty_streak` claims (since
  // `streak_started`) came back empty.
  Micros pause(int empty_streak, std::chrono::steady_clock::time_point streak_started) const;

 private:
  static int64_t now_ticks() { return std::chrono::steady_clock::now().time_since_epoch().count(); }

  std::atomic<Micros::rep> base_;
  std::atomic<Micros::rep> max_;
  std::atomic<int64_t> last_work_{0};
};

// Runs the rare claim scans (expired leases, finished backoffs, BLOCKED rechecks) at most once
// per interval for the whole process instead of once per worker: they find nothing most of
// the time, and an idle relay should not pay for them N times over.
class DueScanSchedule {
 public:
  explicit DueScanSchedule(Micros interval) : interval_(interval) {}
  // True for exactly one caller per interval.
  bool take_turn();

 private:
  Micros interval_;
  std::atomic<int64_t> next_{0};
};

}  // namespace outbox
