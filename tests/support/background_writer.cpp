#include "background_writer.hpp"

#include "interruptible_sleep.hpp"

namespace outbox::test {

BackgroundWriter::BackgroundWriter(std::function<void(int step)> write,
                                   std::chrono::milliseconds interval)
    : write_(std::move(write)) {
  thread_ = std::jthread([this, interval](const std::stop_token& stop) {
    try {
      do {
        write_(steps_.load() + 1);
        ++steps_;
      } while (sleep_unless_stopped(stop, interval));
    } catch (...) {
      std::lock_guard lock(failure_mutex_);
      failure_ = std::current_exception();
    }
  });
}

BackgroundWriter::~BackgroundWriter() = default;

int BackgroundWriter::stop() {
  thread_.request_stop();
  if (thread_.joinable()) thread_.join();
  std::lock_guard lock(failure_mutex_);
  if (failure_) std::rethrow_exception(failure_);
  return steps_.load();
}

}  // namespace outbox::test
