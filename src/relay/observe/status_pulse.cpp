#include "observe/status_pulse.hpp"

#include <spdlog/spdlog.h>

#include "interruptible_sleep.hpp"
#include "systemd_notify.hpp"

namespace outbox {

StatusPulse::StatusPulse(const RelayStats& stats, const BacklogMonitor& backlog,
                         const HealthBoard& health,
                         std::chrono::steady_clock::duration stall_after) {
  const auto watchdog = systemd::watchdog_interval();
  // Ping at half the watchdog interval (systemd's advice), and refresh the status line at
  // least every 5 s.
  Micros period = std::chrono::seconds(5);
  if (watchdog) period = std::min(period, Micros(*watchdog / 2));
  thread_ = std::jthread(
      [&stats, &backlog, &health, stall_after, watchdog, period](const std::stop_token& stop) {
        uint64_t last_published = stats.events_published.load();
        auto last_at = std::chrono::steady_clock::now();
        bool reported_stall = false;
        while (sleep_unless_stopped(stop, period)) {
          const std::string stalled = health.stalled(stall_after);
          if (watchdog && stalled.empty()) systemd::notify_watchdog();
          if (!stalled.empty() && !reported_stall) {
            spdlog::error("{} made no progress for {}: no longer feeding the watchdog", stalled,
                          format_duration(std::chrono::duration_cast<Micros>(stall_after)));
          }
          reported_stall = !stalled.empty();
          const auto now = std::chrono::steady_clock::now();
          const uint64_t published = stats.events_published.load();
          const double rate = static_cast<double>(published - last_published) /
                              std::chrono::duration<double>(now - last_at).count();
          last_published = published;
          last_at = now;
          const BacklogSnapshot snapshot = backlog.snapshot();
          std::string status = "published " + std::to_string(published) + " (" +
                               std::to_string(static_cast<long>(rate)) + "/s), in flight " +
                               std::to_string(stats.events_in_flight.load());
          if (snapshot.valid) {
            status += ", pending ";
            status += std::to_string(snapshot.by_status.at("PENDING"));
            status += ", failed ";
            status += std::to_string(snapshot.by_status.at("FAILED"));
          }
          if (health.draining()) status.insert(0, "draining; ");
          systemd::notify_status(status);
        }
      });
}

StatusPulse::~StatusPulse() = default;

}  // namespace outbox
