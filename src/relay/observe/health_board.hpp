#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace outbox {

// What /healthz, /readyz and the systemd watchdog look at. Loops write here; probes read.
//
// Sources: the start-up wait (kStartUp), each worker (its index), the backlog monitor
// (backlog_monitor()). Liveness: each loop ticks as it goes round. Readiness: each source
// says what it last found wrong ("" for nothing) and only overwrites its own word, so a
// monitor whose reads still work cannot declare ready a relay whose workers cannot write.
class HealthBoard {
 public:
  static constexpr int kStartUp = -1;

  explicit HealthBoard(int workers);

  int backlog_monitor() const { return workers_; }

  // A worker loop (or the start-up wait) went round: it is not stuck.
  void tick(int source);
  void set_started() { started_.store(true); }
  void set_draining() { draining_.store(true); }
  // What `source` last found wrong with the database (for the start-up wait also Kafka),
  // "" once its last attempt worked. Logs when a source's problem appears and when it clears.
  void set_problem(int source, const std::string& problem);

  bool started() const { return started_.load(); }
  bool draining() const { return draining_.load(); }
  // The first problem a source reports, naming the source ("... (worker 1)"), or "".
  std::string problem() const;

  // Empty when every loop ticked within `stall_after`; otherwise which ones did not.
  std::string stalled(std::chrono::steady_clock::duration stall_after) const;

 private:
  static int64_t now_ticks();
  std::string source_name(int source) const;

  int workers_;
  std::unique_ptr<std::atomic<int64_t>[]> heartbeats_;  // [0] start-up, [1 + i] worker i
  std::atomic<bool> started_{false};
  std::atomic<bool> draining_{false};
  mutable std::mutex problems_mutex_;
  std::vector<std::string> problems_;  // [0] start-up, [1 + i] worker i, [1 + workers] monitor
};

}  // namespace outbox
