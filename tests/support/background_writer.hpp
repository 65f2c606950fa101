#pragma once

#include <atomic>
#include <chrono>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

namespace outbox::test {

// Commits events on a thread of its own while a test injects faults, the way an application
// keeps writing while a broker dies: there is always something being published when a fault
// strikes, however fast or slow the machine.
class BackgroundWriter {
 public:
  // write(1), write(2), ... one step every `interval`, until stop().
  BackgroundWriter(std::function<void(int step)> write, std::chrono::milliseconds interval);
  ~BackgroundWriter();
  BackgroundWriter(const BackgroundWriter&) = delete;
  BackgroundWriter& operator=(const BackgroundWriter&) = delete;

  // Finishes the step under way and returns how many steps were written; rethrows what a
  // step threw.
  int stop();

 private:
  std::function<void(int)> write_;
  std::atomic<int> steps_{0};
  std::mutex failure_mutex_;
  std::exception_ptr failure_;
  std::jthread thread_;
};

}  // namespace outbox::test
