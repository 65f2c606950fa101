#pragma once

#include <string>

namespace outbox::harness {

// A fresh directory under /tmp for one run's files (configs, logs, sockets); removed by the
// destructor unless keep() was called (a failed verification keeps its evidence).
class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "outbox-test");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  // Writes text to name and returns its path.
  std::string write(const std::string& name, const std::string& text) const;
  void keep() { keep_ = true; }

 private:
  std::string path_;
  bool keep_ = false;
};

// The whole content of a file (empty when it cannot be read).
std::string read_text_file(const std::string& path);

}  // namespace outbox::harness
