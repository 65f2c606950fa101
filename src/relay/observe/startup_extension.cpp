#include "observe/startup_extension.hpp"

#include "interruptible_sleep.hpp"
#include "systemd_notify.hpp"

namespace outbox {

StartupExtension::StartupExtension(const HealthBoard& health,
                                   std::chrono::steady_clock::duration stall_after) {
  thread_ = std::jthread([&health, stall_after](const std::stop_token& stop) {
    do {
      if (health.stalled(stall_after).empty()) systemd::notify_extend_timeout(kStartupExtension);
    } while (sleep_unless_stopped(stop, kStartupExtensionInterval));
  });
}

}  // namespace outbox
