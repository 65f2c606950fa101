#pragma once

#include <chrono>
#include <thread>

#include "observe/health_board.hpp"

namespace outbox {

// Keeps systemd from killing a relay that waits at boot for MySQL or Kafka (a database that
// starts after the relay, a broker still electing leaders) longer than TimeoutStartSec= (90 s
// by default): while it lives, it sends EXTEND_TIMEOUT_USEC=kStartupExtension every
// kStartupExtensionInterval, as long as the start-up wait keeps going round (it ticked the
// HealthBoard within `stall_after`). A wait that hangs stops the extensions, and systemd's
// start timeout strikes once the last one ran out.
//
// No WATCHDOG=1 here: systemd arms WatchdogSec= only once READY=1 arrived, and StatusPulse
// feeds it from then on.
class StartupExtension {
 public:
  StartupExtension(const HealthBoard& health, std::chrono::steady_clock::duration stall_after);
  StartupExtension(const StartupExtension&) = delete;
  StartupExtension& operator=(const StartupExtension&) = delete;

 private:
  std::jthread thread_;
};

// Six times the interval: a late message (a busy machine) never lets an extension run out.
inline constexpr std::chrono::seconds kStartupExtensionInterval{5};
inline constexpr std::chrono::seconds kStartupExtension{30};

}  // namespace outbox
