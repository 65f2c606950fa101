#pragma once

#include <condition_variable>
#include <mutex>
#include <stop_token>

#include "config/duration.hpp"

namespace outbox {

// Sleeps for `duration` or until `stop` is requested. Returns false if it was stopped.
inline bool sleep_unless_stopped(const std::stop_token& stop, Micros duration) {
  std::mutex mutex;
  std::condition_variable_any wake;
  std::unique_lock lock(mutex);
  wake.wait_for(lock, stop, duration, [] { return false; });
  return !stop.stop_requested();
}

}  // namespace outbox
