#include "worker_threads.hpp"

namespace outbox {

WorkerThreads::WorkerThreads(int count, const std::function<void(int)>& body) {
  threads_.reserve(static_cast<size_t>(count));
  for (int index = 0; index < count; ++index) {
    threads_.emplace_back([this, body, index] {
      body(index);
      const std::lock_guard lock(mutex_);
      ++finished_;
      changed_.notify_all();
    });
  }
}

WorkerThreads::~WorkerThreads() {
  join();
}

void WorkerThreads::wait_for_stop(const std::stop_token& stop) {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, stop, [] { return false; });
}

bool WorkerThreads::wait_finished(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock lock(mutex_);
  return changed_.wait_until(lock, deadline, [this] { return finished_ == threads_.size(); });
}

size_t WorkerThreads::busy() {
  const std::lock_guard lock(mutex_);
  return threads_.size() - finished_;
}

void WorkerThreads::join() {
  threads_.clear();
}

}  // namespace outbox
