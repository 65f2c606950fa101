#pragma once

#include <chrono>
#include <optional>
#include <string>

namespace outbox::systemd {

// Thin wrappers over sd_notify(3). Each is a no-op when the process was not started by
// systemd with Type=notify (no NOTIFY_SOCKET), so the daemon runs the same outside systemd.
void notify_ready();
void notify_stopping();
void notify_status(const std::string& status);
void notify_watchdog();
// EXTEND_TIMEOUT_USEC=: the current state (start-up, stop) may take `extension` longer than
// TimeoutStartSec=/TimeoutStopSec= allow, counted from now (systemd 236+). Send it again
// before `extension` runs out to keep extending.
void notify_extend_timeout(std::chrono::microseconds extension);

// The watchdog interval systemd expects pings within (WatchdogSec=), if it set one.
std::optional<std::chrono::microseconds> watchdog_interval();

}  // namespace outbox::systemd
