#include "harness/daemon_process.hpp"

#include <csignal>
#include <fstream>

#include "failpoint.hpp"

namespace outbox::harness {

DaemonProcess::DaemonProcess(const std::string& binary, const std::string& dir,
                             const std::string& name, const std::string& config_yaml,
                             const std::map<std::string, std::string>& extra_env)
    : name_(name), config_file_(dir + "/" + name + ".yaml") {
  std::ofstream(config_file_) << config_yaml;
  process_ =
      std::make_unique<ChildProcess>(std::vector<std::string>{binary, "--config", config_file_},
                                     dir + "/" + name + ".log", extra_env);
}

int DaemonProcess::count(const std::string& text) const {
  return count_occurrences(log(), text);
}

std::optional<int> DaemonProcess::stop(std::chrono::milliseconds limit) {
  process_->signal(SIGTERM);
  return process_->wait_exit(limit);
}

int DaemonProcess::kill_now() {
  process_->signal(SIGKILL);
  return process_->wait_exit(std::chrono::seconds(30)).value_or(-1);
}

int count_occurrences(const std::string& haystack, const std::string& text) {
  int found = 0;
  for (size_t at = 0; (at = haystack.find(text, at)) != std::string::npos; at += text.size())
    ++found;
  return found;
}

std::map<std::string, std::string> failpoint_environment(const std::string& spec) {
  return {{failpoints::kVariable, spec}, {failpoints::kGuardVariable, failpoints::kGuardValue}};
}

}  // namespace outbox::harness
