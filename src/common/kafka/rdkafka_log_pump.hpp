#pragma once

#include <spdlog/spdlog.h>

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <stop_token>
#include <string>
#include <thread>

namespace outbox {

// Writes librdkafka's log lines from a thread of ours. librdkafka calls its log callback on its
// broker threads, the ones that read produce responses: a callback that writes to stderr
// behind the logger's lock would hold acknowledgements back whenever the log is slow (a full
// pipe, a journald that throttles), and with them the marks, past the leases. While a pump is
// installed the callback only queues the line; without one (tools, tests) it writes at once.
//
// One per process, installed for its lifetime by the program (the relay's run_relay): it must
// outlive every librdkafka handle whose lines should be queued.
class RdKafkaLogPump {
 public:
  // `capacity`: lines queued at most; beyond it lines are dropped and counted, and the count
  // is logged once the log keeps up again.
  explicit RdKafkaLogPump(size_t capacity = 10000);
  // Uninstalls, writes what is still queued, stops the thread.
  ~RdKafkaLogPump();
  RdKafkaLogPump(const RdKafkaLogPump&) = delete;
  RdKafkaLogPump& operator=(const RdKafkaLogPump&) = delete;

  // Queues a line for the installed pump; false when none is installed.
  static bool offer(spdlog::level::level_enum level, std::string line);

 private:
  struct Line {
    spdlog::level::level_enum level;
    std::string text;
  };
  void push(spdlog::level::level_enum level, std::string line);
  void run(const std::stop_token& stop);

  size_t capacity_;
  std::mutex mutex_;
  std::condition_variable_any ready_;
  std::deque<Line> lines_;
  uint64_t dropped_ = 0;
  std::jthread thread_;
};

}  // namespace outbox
