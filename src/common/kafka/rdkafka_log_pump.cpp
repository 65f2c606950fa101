#include "kafka/rdkafka_log_pump.hpp"

#include <utility>

namespace outbox {
namespace {

// Guards which pump is installed: held only to queue a line or to swap the pump, never while
// writing, so a slow log never blocks a librdkafka thread here.
std::mutex g_installed_mutex;
RdKafkaLogPump* g_installed = nullptr;

}  // namespace

RdKafkaLogPump::RdKafkaLogPump(size_t capacity)
    : capacity_(capacity), thread_([this](const std::stop_token& stop) { run(stop); }) {
  const std::lock_guard lock(g_installed_mutex);
  g_installed = this;
}

RdKafkaLogPump::~RdKafkaLogPump() {
  {
    const std::lock_guard lock(g_installed_mutex);
    if (g_installed == this) g_installed = nullptr;
  }
  thread_.request_stop();
  thread_.join();
}

bool RdKafkaLogPump::offer(spdlog::level::level_enum level, std::string line) {
  const std::lock_guard lock(g_installed_mutex);
  if (g_installed == nullptr) return false;
  g_installed->push(level, std::move(line));
  return true;
}

void RdKafkaLogPump::push(spdlog::level::level_enum level, std::string line) {
  {
    const std::lock_guard lock(mutex_);
    if (lines_.size() >= capacity_) {
      ++dropped_;
      return;
    }
    lines_.push_back(Line{level, std::move(line)});
  }
  ready_.notify_one();
}

void RdKafkaLogPump::run(const std::stop_token& stop) {
  std::deque<Line> batch;
  for (;;) {
    uint64_t dropped = 0;
    {
      std::unique_lock lock(mutex_);
      ready_.wait(lock, stop, [this] { return !lines_.empty(); });
      batch.swap(lines_);
      std::swap(dropped, dropped_);
    }
    for (const Line& line : batch)
      spdlog::log(line.level, "{}", line.text);
    batch.clear();
    if (dropped > 0) {
      spdlog::warn("librdkafka: {} log lines dropped while the log could not keep up", dropped);
    }
    // Stopped: what was queued before is written above; the uninstalled pump gets no more.
    if (stop.stop_requested()) {
      const std::lock_guard lock(mutex_);
      if (lines_.empty()) return;
    }
  }
}

}  // namespace outbox
