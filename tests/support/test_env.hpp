#pragma once

#include <string>

#include "mysql/mysql_endpoint.hpp"

namespace outbox::test {

// Paths baked in by CMake, so tests run the binaries of this build tree.
std::string relay_binary();
std::string test_broker_binary();
std::string loadgen_binary();
std::string planner_binary();
std::string outboxctl_binary();
std::string source_dir();

// The MariaDB server the test command started (scripts/local-mariadb.sh writes these
// variables). Throws with a clear message when they are missing: an integration test never
// silently skips.
MysqlEndpoint mysql_endpoint(const std::string& database);

// The whole content of a file (empty when it cannot be read).
std::string read_text_file(const std::string& path);

// text with every occurrence of `from` replaced by `to`.
std::string replace_all(std::string text, const std::string& from, const std::string& to);

// A fresh directory under /tmp for one test's files; removed by the destructor.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  // Writes text to name and returns its path.
  std::string write(const std::string& name, const std::string& text) const;

 private:
  std::string path_;
};

}  // namespace outbox::test
