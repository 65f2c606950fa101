#include "systemd_notify.hpp"

#include <systemd/sd-daemon.h>

namespace outbox::systemd {

void notify_ready() {
  sd_notify(0, "READY=1");
}
void notify_stopping() {
  sd_notify(0, "STOPPING=1");
}
void notify_watchdog() {
  sd_notify(0, "WATCHDOG=1");
}
void notify_extend_timeout(std::chrono::microseconds extension) {
  sd_notify(0, ("EXTEND_TIMEOUT_USEC=" + std::to_string(extension.count())).c_str());
}

void notify_status(const std::string& status) {
  // STATUS= is one line: a newline would end the field.
  std::string line = status;
  for (char& c : line) {
    if (c == '\n') c = ' ';
  }
  sd_notify(0, ("STATUS=" + line).c_str());
}

std::optional<std::chrono::microseconds> watchdog_interval() {
  uint64_t usec = 0;
  if (sd_watchdog_enabled(0, &usec) <= 0) return std::nullopt;
  return std::chrono::microseconds(usec);
}

}  // namespace outbox::systemd
