#pragma once

#include <string>
#include <vector>

namespace outbox {

// One problem in a config file, printed as "FILE:LINE: key.path: what is wrong".
struct ConfigProblem {
  std::string file;
  int line = 0;  // 1-based; 0 when the problem is not tied to a line (unreadable file)
  std::string key_path;
  std::string what;

  std::string to_string() const;
};

// Collects every problem so the operator sees all mistakes at once, not one per restart.
class ConfigDiagnostics {
 public:
  explicit ConfigDiagnostics(std::string file) : file_(std::move(file)) {}

  void add(int line, std::string key_path, std::string what);
  // Something that works but should not stay so (a secret file others can read): reported,
  // never a reason to refuse the file.
  void warn(int line, std::string key_path, std::string what);
  bool empty() const { return problems_.empty(); }
  const std::vector<ConfigProblem>& problems() const { return problems_; }
  const std::vector<ConfigProblem>& warnings() const { return warnings_; }
  const std::string& file() const { return file_; }
  // All problems, one per line, in file order.
  std::string render() const;
  // All warnings, one per line, each starting "warning: ".
  std::string render_warnings() const;

 private:
  std::string file_;
  std::vector<ConfigProblem> problems_;
  std::vector<ConfigProblem> warnings_;
};

// The exit code of a daemon that cannot start because of its configuration (sysexits.h
// EX_CONFIG); systemd units use it in RestartPreventExitStatus so a bad file is not retried.
inline constexpr int kExitConfig = 78;

}  // namespace outbox
