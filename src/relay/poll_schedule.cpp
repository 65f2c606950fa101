#include "poll_schedule.hpp"

#include <algorithm>

namespace outbox {

Micros PollSchedule::pause(int empty_streak,
                           std::chrono::steady_clock::time_point streak_started) const {
  const auto last_work =
      std::chrono::steady_clock::time_point(std::chrono::steady_clock::duration(last_work_.load()));
  // Another worker found rows since this one's streak began: the outbox is not idle.
  const Micros base(base_.load());
  const Micros max(max_.load());
  if (last_work >= streak_started) return base;
  Micros pause = base;
  for (int i = 1; i < empty_streak && pause < max; ++i)
    pause *= 2;
  return std::min(pause, max);
}

bool DueScanSchedule::take_turn() {
  const int64_t now = std::chrono::steady_clock::now().time_since_epoch().count();
  int64_t next = next_.load();
  if (now < next) return false;
  const int64_t following =
      now + std::chrono::duration_cast<std::chrono::steady_clock::duration>(interval_).count();
  return next_.compare_exchange_strong(next, following);
}

}  // namespace outbox
