#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace outbox {

// What /healthz, /readyz and the systemd watchdog look at. Loops write here; probes read.
class HealthBoard {
 public:
  explicit HealthBoard(int workers);

  // A worker loop (or, index -1, the start-up wait) went round: it is not stuck.
  void tick(int worker);
  void set_started() { started_.store(true); }
  void set_draining() { draining_.store(true); }
  void set_database_ok(bool ok) { database_ok_.store(ok); }

  bool started() const { return started_.load(); }
  bool draining() const { return draining_.load(); }
  bool database_ok() const { return database_ok_.load(); }

  // Empty when every loop ticked within `stall_after`; otherwise which ones did not.
  std::string stalled(std::chrono::steady_clock::duration stall_after) const;

 private:
  static int64_t now_ticks();

  std::unique_ptr<std::atomic<int64_t>[]> heartbeats_;  // [0] start-up, [1 + i] worker i
  int count_;
  std::atomic<bool> started_{false};
  std::atomic<bool> draining_{false};
  std::atomic<bool> database_ok_{false};
};

}  // namespace outbox
