#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <thread>

namespace outbox::harness {

// Polls `condition` until it holds. The limit is a hang guard, not a speed assertion: it is
// generous, and when it is hit the caller fails naming what it waited for.
inline bool eventually(const std::function<bool()>& condition,
                       std::chrono::milliseconds limit = std::chrono::seconds(120)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!condition()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

}  // namespace outbox::harness
