#include "publish/driven_deliveries.hpp"

namespace outbox {

DrivenDeliveries::~DrivenDeliveries() {
  join();
}

void DrivenDeliveries::start(std::function<void()> drive) {
  driver_ = std::jthread(std::move(drive));
}

void DrivenDeliveries::join() {
  if (driver_.joinable()) driver_.join();
}

void DrivenDeliveries::finish() {
  // Notify while holding the lock: once it is released the worker may destroy the batch.
  const std::lock_guard lock(mutex_);
  done_ = true;
  done_changed_.notify_all();
}

bool DrivenDeliveries::wait_until(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock lock(mutex_);
  return done_changed_.wait_until(lock, deadline, [this] { return done_; });
}

}  // namespace outbox
