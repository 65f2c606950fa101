// librdkafka's log lines: with a pump installed, the callback (which runs on librdkafka's
// broker threads) returns while the log itself is stuck, and the lines follow once it moves;
// without one they are written at once. A sink that blocks until released stands for a slow
// stderr.
#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>
#include <catch2/catch.hpp>

#include <chrono>
#include <condition_variable>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "kafka/rdkafka_handles.hpp"
#include "kafka/rdkafka_log_pump.hpp"
#include "poll.hpp"

using namespace std::chrono_literals;

namespace {

// Holds every write until release(); keeps what it was given.
class GateSink : public spdlog::sinks::base_sink<std::mutex> {
 public:
  void release() {
    {
      const std::lock_guard lock(gate_mutex_);
      open_ = true;
    }
    opened_.notify_all();
  }
  std::vector<std::string> lines() {
    const std::lock_guard lock(gate_mutex_);
    return lines_;
  }

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    std::unique_lock lock(gate_mutex_);
    opened_.wait(lock, [this] { return open_; });
    lines_.emplace_back(msg.payload.data(), msg.payload.size());
  }
  void flush_() override {}

 private:
  std::mutex gate_mutex_;
  std::condition_variable opened_;
  bool open_ = false;
  std::vector<std::string> lines_;
};

// The default logger, writing to `sink`, for the scope; the previous one back afterwards.
class LoggerScope {
 public:
  explicit LoggerScope(std::shared_ptr<GateSink> sink) : previous_(spdlog::default_logger()) {
    auto logger = std::make_shared<spdlog::logger>("test", std::move(sink));
    logger->set_level(spdlog::level::trace);
    spdlog::set_default_logger(std::move(logger));
  }
  ~LoggerScope() { spdlog::set_default_logger(previous_); }
  LoggerScope(const LoggerScope&) = delete;
  LoggerScope& operator=(const LoggerScope&) = delete;

 private:
  std::shared_ptr<spdlog::logger> previous_;
};

bool has_line(GateSink& sink, const std::string& text) {
  for (const std::string& line : sink.lines()) {
    if (line.find(text) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("librdkafka's log callback does not wait for a stuck log while a pump runs", "[log]") {
  auto sink = std::make_shared<GateSink>();
  const LoggerScope scope(sink);
  {
    const outbox::RdKafkaLogPump pump;
    // A librdkafka broker thread: it must get back to its acknowledgements.
    auto returned = std::async(std::launch::async, [] {
      for (int i = 0; i < 100; ++i)
        outbox::log_from_rdkafka(nullptr, 4, "REQTMOUT",
                                 ("timed out " + std::to_string(i)).c_str());
    });
    // Generous: it takes microseconds; a callback that waits for the log never returns.
    REQUIRE(returned.wait_for(30s) == std::future_status::ready);
    CHECK(sink->lines().empty());  // nothing got through the stuck log yet
    sink->release();
    REQUIRE(outbox::test::eventually([&] { return has_line(*sink, "timed out 99"); }));
  }
  CHECK(has_line(*sink, "librdkafka - REQTMOUT: timed out 0"));
  CHECK(sink->lines().size() == 100);
}

TEST_CASE("lines beyond the pump's capacity are dropped and counted", "[log]") {
  auto sink = std::make_shared<GateSink>();
  const LoggerScope scope(sink);
  {
    const outbox::RdKafkaLogPump pump(5);
    for (int i = 0; i < 50; ++i)
      outbox::log_from_rdkafka(nullptr, 3, "FAIL", ("broken " + std::to_string(i)).c_str());
    sink->release();
    REQUIRE(outbox::test::eventually([&] { return has_line(*sink, "log lines dropped"); }));
  }
  // At most the capacity, plus the batch the pump had taken when the log got stuck.
  CHECK(sink->lines().size() < 50);
  CHECK(has_line(*sink, "broken 0"));
}

TEST_CASE("without a pump librdkafka's lines are written at once", "[log]") {
  auto sink = std::make_shared<GateSink>();
  sink->release();
  const LoggerScope scope(sink);
  outbox::log_from_rdkafka(nullptr, 6, "INIT", "hello");
  CHECK(sink->lines() == std::vector<std::string>{"librdkafka - INIT: hello"});
}
