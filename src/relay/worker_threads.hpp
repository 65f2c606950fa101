#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <stop_token>
#include <thread>
#include <vector>

namespace outbox {

// The worker threads of one process, and the drain's wait for them.
class WorkerThreads {
 public:
  // Starts `count` threads, each running `body(index)`; each counts as finished once its body
  // returned (or threw: the body must not).
  WorkerThreads(int count, const std::function<void(int)>& body);
  // Joins every thread.
  ~WorkerThreads();
  WorkerThreads(const WorkerThreads&) = delete;
  WorkerThreads& operator=(const WorkerThreads&) = delete;

  size_t size() const { return threads_.size(); }
  // Blocks until `stop` is requested.
  void wait_for_stop(const std::stop_token& stop);
  // Waits until every thread finished, or `deadline`: true if every one did.
  bool wait_finished(std::chrono::steady_clock::time_point deadline);
  // Threads not finished yet.
  size_t busy();
  // Joins them all (each must be finishing).
  void join();

 private:
  std::mutex mutex_;
  std::condition_variable_any changed_;
  size_t finished_ = 0;
  std::vector<std::jthread> threads_;  // last: joined before the members above go
};

}  // namespace outbox
