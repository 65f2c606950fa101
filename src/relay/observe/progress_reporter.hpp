#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <thread>

#include "config/duration.hpp"
#include "observe/relay_stats.hpp"

namespace outbox {

// Logs one progress line every `interval` (published, rate, in flight, failures), so an
// operator tailing the journal sees the relay move without a metrics stack.
class ProgressReporter {
 public:
  ProgressReporter(const RelayStats& stats, Micros interval);
  ~ProgressReporter();
  ProgressReporter(const ProgressReporter&) = delete;
  ProgressReporter& operator=(const ProgressReporter&) = delete;

  void report_now();

 private:
  const RelayStats& stats_;
  std::mutex mutex_;
  uint64_t last_published_ = 0;
  uint64_t last_rate_limited_ = 0;
  std::chrono::steady_clock::time_point last_at_;
  std::jthread thread_;
};

}  // namespace outbox
