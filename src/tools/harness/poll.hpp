#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <thread>

namespace outbox::harness {

// Polls `condition` until it holds. The limit is a hang guard, not a speed assertion: it is
// generous, and when it is hit the caller fails naming what it waited for.
// `interval` is the pause between looks (longer for views a server caches, e.g. INNODB_TRX).
inline bool eventually(const std::function<bool()>& condition,
                       std::chrono::milliseconds limit = std::chrono::seconds(120),
                       std::chrono::milliseconds interval = std::chrono::milliseconds(50)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!condition()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(interval);
  }
  return true;
}

// Polls until `done` holds, for as long as `progress` (a count that only grows while work is
// done, e.g. rows published) keeps changing: the hang guard for a drain whose length depends
// on the backlog and on the machine's load, which a fixed limit would turn into a speed
// assertion. Fails only when `progress` stood still for `stalled` (longer than any pause the
// code under test takes on purpose).
inline bool eventually_while_progressing(
    const std::function<bool()>& done, const std::function<long long()>& progress,
    std::chrono::milliseconds stalled = std::chrono::seconds(120),
    std::chrono::milliseconds interval = std::chrono::milliseconds(200)) {
  long long last = progress();
  auto moved_at = std::chrono::steady_clock::now();
  while (!done()) {
    const long long now_at = progress();
    if (now_at != last) {
      last = now_at;
      moved_at = std::chrono::steady_clock::now();
    } else if (std::chrono::steady_clock::now() - moved_at >= stalled) {
      return false;
    }
    std::this_thread::sleep_for(interval);
  }
  return true;
}

}  // namespace outbox::harness
