#pragma once

#include <chrono>
#include <thread>

#include "observe/backlog_monitor.hpp"
#include "observe/health_board.hpp"
#include "observe/relay_stats.hpp"

namespace outbox {

// Keeps systemd informed while the relay runs: a STATUS= line (published, rate, in flight,
// backlog) every few seconds, and WATCHDOG=1 only while every worker loop keeps going round,
// so a relay whose workers hang is restarted by systemd (WatchdogSec=) instead of sitting
// there looking alive.
class StatusPulse {
 public:
  StatusPulse(const RelayStats& stats, const BacklogMonitor& backlog, const HealthBoard& health,
              std::chrono::steady_clock::duration stall_after);
  ~StatusPulse();
  StatusPulse(const StatusPulse&) = delete;
  StatusPulse& operator=(const StatusPulse&) = delete;

 private:
  std::jthread thread_;
};

}  // namespace outbox
