#pragma once

#include <memory>
#include <string>
#include <vector>

#include "harness/child_process.hpp"

namespace outbox::harness {

// An outbox-test-broker process (librdkafka's mock cluster over TCP, see
// src/tools/test_broker), its control socket and log in `dir`, so faults injected into one
// broker never touch another run's.
class BrokerProcess {
 public:
  BrokerProcess(const std::string& binary, const std::string& dir, int brokers, int partitions,
                const std::vector<std::string>& topics);
  const std::string& bootstrap() const { return bootstrap_; }
  // Sends a control command (see mock_commands.hpp); throws unless the reply is "ok".
  void command(const std::string& line) const;
  ChildProcess& process() { return *process_; }
  pid_t pid() const { return process_->pid(); }

 private:
  std::string binary_;
  std::string control_;
  std::unique_ptr<ChildProcess> process_;
  std::string bootstrap_;
};

}  // namespace outbox::harness
