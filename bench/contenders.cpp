#include "contenders.hpp"

#include <iostream>
#include <stdexcept>

#include "relay_runs.hpp"

namespace outbox::bench {
namespace {

// outbox-relay with its default configuration (only the connection settings and the topic).
class RelayContender final : public Contender {
 public:
  RelayContender(BenchContext& context, std::string topic, int serial)
      : context_(context), topic_(std::move(topic)), serial_(serial) {}
  void prepare() override {}
  void start() override {
    relay_ =
        std::make_unique<RelayUnderTest>(context_, topic_, "bench-vs-" + std::to_string(serial_));
  }
  void wait_ready() override {}
  // The relay is ours: it stops cleanly on SIGTERM, or the run fails.
  bool stop() override {
    if (!relay_->stop()) throw std::runtime_error("relay did not stop cleanly: " + relay_->log());
    return true;
  }
  pid_t pid() const override { return relay_->pid(); }
  std::string id_header() const override { return "event_id"; }
  std::string log() const override { return relay_ ? relay_->log() : ""; }

 private:
  BenchContext& context_;
  std::string topic_;
  int serial_;
  std::unique_ptr<RelayUnderTest> relay_;
};

class DebeziumContender final : public Contender {
 public:
  DebeziumContender(const DebeziumTarget& target, const std::string& topic, int serial)
      : connect_(target, topic, 5400 + serial) {}
  void prepare() override {
    connect_.start();
    connect_.wait_streaming();
    stop();  // killed or not: what counts here is that offsets were committed
    if (!connect_.has_offsets()) {
      throw std::runtime_error("Debezium stopped without committed offsets:\n" + connect_.log());
    }
  }
  void start() override { connect_.start(); }
  void wait_ready() override { connect_.wait_streaming(); }
  bool stop() override {
    switch (connect_.stop()) {
      case DebeziumConnect::StopOutcome::kStopped:
        return true;
      case DebeziumConnect::StopOutcome::kKilled:
        std::cerr << "==> Debezium did not exit within 180 s of SIGTERM: its threads are dumped "
                     "in its log, and it was killed -9\n";
        return false;
      case DebeziumConnect::StopOutcome::kFailed:
        break;
    }
    throw std::runtime_error("Debezium did not stop cleanly:\n" + connect_.log());
  }
  pid_t pid() const override { return connect_.pid(); }
  std::string id_header() const override { return "id"; }
  std::string log() const override { return connect_.log(); }

 private:
  DebeziumConnect connect_;
};

}  // namespace

std::string system_name(System system) {
  return system == System::relay ? "relay" : "Debezium";
}

std::unique_ptr<Contender> make_contender(System system, BenchContext& context,
                                          const DebeziumTarget& debezium, const std::string& topic,
                                          int serial) {
  if (system == System::relay) return std::make_unique<RelayContender>(context, topic, serial);
  return std::make_unique<DebeziumContender>(debezium, topic, serial);
}

}  // namespace outbox::bench
