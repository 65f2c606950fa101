#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "harness/child_process.hpp"

namespace outbox::harness {

// One of the chain's daemons (outbox-relay, notification-planner) run with a config file and a
// log of its own in `dir` (<name>.yaml, <name>.log) and extra environment (failpoints).
class DaemonProcess {
 public:
  DaemonProcess(const std::string& binary, const std::string& dir, const std::string& name,
                const std::string& config_yaml,
                const std::map<std::string, std::string>& extra_env = {});

  const std::string& name() const { return name_; }
  ChildProcess& process() { return *process_; }
  const std::string& config_file() const { return config_file_; }
  const std::string& log_file() const { return process_->output_file(); }
  std::string log() const { return process_->output(); }
  // How many times `text` occurs in the log so far.
  int count(const std::string& text) const;
  bool logged(const std::string& text) const { return count(text) > 0; }
  // SIGTERM (a drain), then the exit status, or nullopt while it still runs after `limit`.
  std::optional<int> stop(std::chrono::milliseconds limit);
  // SIGKILL (a crash), then the exit status (137).
  int kill_now();

 private:
  std::string name_;
  std::string config_file_;
  std::unique_ptr<ChildProcess> process_;
};

// Occurrences of `text` in `haystack`.
int count_occurrences(const std::string& haystack, const std::string& text);

// The environment that arms failpoints in a child (see src/common/failpoint.hpp), with the
// guard variable a process demands before it fails on purpose.
std::map<std::string, std::string> failpoint_environment(const std::string& spec);

}  // namespace outbox::harness
