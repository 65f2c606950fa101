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

}  // namespace outbox::harness
