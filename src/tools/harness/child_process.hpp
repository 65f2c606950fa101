#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace outbox::harness {

// A program started by a test or by outbox-verify (relay, planner, broker, ...), with stdout and
// stderr in one file. The destructor kills (SIGKILL) and reaps it if it is still running, so a
// failing run never leaves processes behind.
class ChildProcess {
 public:
  ChildProcess(const std::vector<std::string>& argv, const std::string& output_file,
               const std::map<std::string, std::string>& extra_env = {});
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  void signal(int signal) const;
  // The exit status once the process ended (128 + signal if killed), or nullopt if it is
  // still running after `timeout`.
  std::optional<int> wait_exit(std::chrono::milliseconds timeout);
  bool running();
  // stdout and stderr so far.
  std::string output() const;
  const std::string& output_file() const { return output_file_; }

 private:
  pid_t pid_ = -1;
  std::optional<int> exit_status_;
  std::string output_file_;
};

// SIGKILL to every ChildProcess still running: for a tool interrupted mid-run (SIGINT), so
// no relay, consumer or broker outlives it. Safe to call from another thread.
void kill_all_children();

// Runs a command to completion; returns exit status and its stdout.
struct CommandResult {
  int status = -1;
  std::string out;
  std::string err;
};
CommandResult run_command(const std::vector<std::string>& argv, const std::string& stdin_text = "");

}  // namespace outbox::harness
