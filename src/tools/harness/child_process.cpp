#include "harness/child_process.hpp"

#include <fcntl.h>
#include <signal.h>  // NOLINT(modernize-deprecated-headers): POSIX kill, sigset_t
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

#include "harness/temp_dir.hpp"

extern char** environ;

namespace outbox::harness {
namespace {

// Every running ChildProcess, for kill_all_children().
std::mutex g_children_mutex;
std::set<pid_t> g_children;

void forget_child(pid_t pid) {
  const std::lock_guard lock(g_children_mutex);
  g_children.erase(pid);
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (std::string& s : strings)
    out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

std::vector<std::string> merged_environment(const std::map<std::string, std::string>& extra) {
  std::map<std::string, std::string> merged;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string text(*entry);
    const size_t eq = text.find('=');
    if (eq != std::string::npos) merged[text.substr(0, eq)] = text.substr(eq + 1);
  }
  for (const auto& [name, value] : extra)
    merged[name] = value;
  std::vector<std::string> out;
  out.reserve(merged.size());
  for (const auto& [name, value] : merged) {
    std::string& entry = out.emplace_back(name);
    entry += '=';
    entry += value;
  }
  return out;
}

int decode_status(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

}  // namespace

ChildProcess::ChildProcess(const std::vector<std::string>& argv, const std::string& output_file,
                           const std::map<std::string, std::string>& extra_env)
    : output_file_(output_file) {
  std::vector<std::string> args = argv;
  std::vector<std::string> env = merged_environment(extra_env);
  std::vector<char*> c_args = c_strings(args);
  std::vector<char*> c_env = c_strings(env);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, output_file.c_str(),
                                   O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  // The child starts with no blocked signals even if the test runner blocked some.
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK);
  const int error =
      posix_spawn(&pid_, c_args[0], &actions, &attributes, c_args.data(), c_env.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (error != 0) {
    throw std::runtime_error("cannot start " + argv[0] + ": " + std::strerror(error));
  }
  const std::lock_guard lock(g_children_mutex);
  g_children.insert(pid_);
}

ChildProcess::~ChildProcess() {
  if (!exit_status_ && pid_ > 0) {
    kill(pid_, SIGKILL);
    int status = 0;
    waitpid(pid_, &status, 0);
    forget_child(pid_);
  }
}

void ChildProcess::signal(int signal) const {
  if (!exit_status_) kill(pid_, signal);
}

std::optional<int> ChildProcess::wait_exit(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!exit_status_) {
    int status = 0;
    const pid_t done = waitpid(pid_, &status, WNOHANG);
    if (done == pid_) {
      exit_status_ = decode_status(status);
      forget_child(pid_);
      break;
    }
    if (std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return exit_status_;
}

bool ChildProcess::running() {
  return !wait_exit(std::chrono::milliseconds(0)).has_value();
}

std::string ChildProcess::output() const {
  return read_text_file(output_file_);
}

void kill_all_children() {
  const std::lock_guard lock(g_children_mutex);
  for (const pid_t pid : g_children)
    kill(pid, SIGKILL);
}

CommandResult run_command(const std::vector<std::string>& argv, const std::string& stdin_text) {
  char out_template[] = "/tmp/outbox-cmd-out-XXXXXX";
  char err_template[] = "/tmp/outbox-cmd-err-XXXXXX";
  char in_template[] = "/tmp/outbox-cmd-in-XXXXXX";
  const int out_fd = mkstemp(out_template);
  const int err_fd = mkstemp(err_template);
  const int in_fd = mkstemp(in_template);
  if (write(in_fd, stdin_text.data(), stdin_text.size()) < 0) throw std::runtime_error("write");
  close(out_fd);
  close(err_fd);
  close(in_fd);
  std::vector<std::string> args = argv;
  std::vector<char*> c_args = c_strings(args);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, in_template, O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out_template, O_WRONLY | O_TRUNC, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err_template, O_WRONLY | O_TRUNC, 0);
  pid_t pid = -1;
  const int error = posix_spawnp(&pid, c_args[0], &actions, nullptr, c_args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  CommandResult result;
  if (error == 0) {
    int status = 0;
    waitpid(pid, &status, 0);
    result.status = decode_status(status);
  } else {
    result.err = std::string("cannot start ") + argv[0] + ": " + std::strerror(error);
  }
  result.out = read_text_file(out_template);
  result.err += read_text_file(err_template);
  unlink(out_template);
  unlink(err_template);
  unlink(in_template);
  return result;
}

}  // namespace outbox::harness
