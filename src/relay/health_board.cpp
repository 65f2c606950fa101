#include "health_board.hpp"

namespace outbox {

int64_t HealthBoard::now_ticks() {
  return std::chrono::steady_clock::now().time_since_epoch().count();
}

HealthBoard::HealthBoard(int workers)
    : heartbeats_(new std::atomic<int64_t>[static_cast<size_t>(workers) + 1]), count_(workers + 1) {
  for (int i = 0; i < count_; ++i)
    heartbeats_[static_cast<size_t>(i)].store(now_ticks());
}

void HealthBoard::tick(int worker) {
  const int slot = worker + 1;
  if (slot >= 0 && slot < count_) heartbeats_[static_cast<size_t>(slot)].store(now_ticks());
}

std::string HealthBoard::stalled(std::chrono::steady_clock::duration stall_after) const {
  const int64_t oldest_allowed = now_ticks() - stall_after.count();
  std::string out;
  // Before start-up completes only the start-up wait loop runs; afterwards only the workers.
  const int first = started() ? 1 : 0;
  const int last = started() ? count_ : 1;
  for (int slot = first; slot < last; ++slot) {
    if (heartbeats_[static_cast<size_t>(slot)].load() < oldest_allowed) {
      out += (out.empty() ? "" : ", ") +
             (slot == 0 ? std::string("start-up") : "worker " + std::to_string(slot - 1));
    }
  }
  return out;
}

}  // namespace outbox
