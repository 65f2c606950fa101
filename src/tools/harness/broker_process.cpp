#include "harness/broker_process.hpp"

#include <chrono>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace outbox::harness {

BrokerProcess::BrokerProcess(const std::string& binary, const std::string& dir, int brokers,
                             int partitions, const std::vector<std::string>& topics)
    : binary_(binary), control_(dir + "/broker-control.sock") {
  std::vector<std::string> argv{
      binary,      "--brokers", std::to_string(brokers), "--partitions", std::to_string(partitions),
      "--control", control_};
  for (const std::string& topic : topics) {
    argv.emplace_back("--topic");
    argv.push_back(topic);
  }
  process_ = std::make_unique<ChildProcess>(argv, dir + "/broker.log");
  for (int i = 0; i < 500 && bootstrap_.empty(); ++i) {
    const std::string output = process_->output();
    const size_t at = output.find("bootstrap=");
    if (at != std::string::npos && output.find('\n', at) != std::string::npos) {
      bootstrap_ = output.substr(at + 10, output.find('\n', at) - at - 10);
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  if (bootstrap_.empty())
    throw std::runtime_error("test broker did not start: " + process_->output());
}

void BrokerProcess::command(const std::string& line) const {
  // Through the broker binary's own client mode, the way scripts inject faults.
  std::vector<std::string> argv{binary_, "ctl", control_};
  std::istringstream words(line);
  for (std::string word; words >> word;)
    argv.push_back(word);
  const CommandResult result = run_command(argv);
  if (result.status != 0) {
    throw std::runtime_error("broker command '" + line + "': " + result.out + result.err);
  }
}

}  // namespace outbox::harness
