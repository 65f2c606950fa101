#include "observe/health_board.hpp"

#include <spdlog/spdlog.h>

namespace outbox {

int64_t HealthBoard::now_ticks() {
  return std::chrono::steady_clock::now().time_since_epoch().count();
}

HealthBoard::HealthBoard(int workers)
    : workers_(workers),
      heartbeats_(new std::atomic<int64_t>[static_cast<size_t>(workers) + 1]),
      problems_(static_cast<size_t>(workers) + 2) {
  for (int i = 0; i <= workers_; ++i)
    heartbeats_[static_cast<size_t>(i)].store(now_ticks());
}

void HealthBoard::tick(int source) {
  const int slot = source + 1;
  if (slot >= 0 && slot <= workers_) heartbeats_[static_cast<size_t>(slot)].store(now_ticks());
}

std::string HealthBoard::source_name(int source) const {
  if (source == kStartUp) return "start-up";
  if (source == backlog_monitor()) return "backlog monitor";
  return "worker " + std::to_string(source);
}

void HealthBoard::set_problem(int source, const std::string& problem) {
  const int slot = source + 1;
  if (slot < 0 || slot > workers_ + 1) return;
  std::lock_guard lock(problems_mutex_);
  std::string& held = problems_[static_cast<size_t>(slot)];
  // Logged on the change only: a worker backing off repeats its problem every round. The
  // start-up wait logs each of its rounds itself.
  if (source != kStartUp && held.empty() && !problem.empty()) {
    spdlog::warn("not ready: {} ({})", problem, source_name(source));
  } else if (source != kStartUp && !held.empty() && problem.empty()) {
    spdlog::info("{}: MySQL works again (it had reported: {})", source_name(source), held);
  }
  held = problem;
}

std::string HealthBoard::problem() const {
  std::lock_guard lock(problems_mutex_);
  for (size_t slot = 0; slot < problems_.size(); ++slot) {
    if (!problems_[slot].empty()) {
      return problems_[slot] + " (" + source_name(static_cast<int>(slot) - 1) + ")";
    }
  }
  return "";
}

std::string HealthBoard::stalled(std::chrono::steady_clock::duration stall_after) const {
  const int64_t oldest_allowed = now_ticks() - stall_after.count();
  std::string out;
  // Before start-up completes only the start-up wait loop runs; afterwards only the workers.
  const int first = started() ? 1 : 0;
  const int last = started() ? workers_ + 1 : 1;
  for (int slot = first; slot < last; ++slot) {
    if (heartbeats_[static_cast<size_t>(slot)].load() < oldest_allowed) {
      out += (out.empty() ? "" : ", ") + source_name(slot - 1);
    }
  }
  return out;
}

}  // namespace outbox
