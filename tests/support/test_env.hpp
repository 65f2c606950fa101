#pragma once

#include <string>

#include "harness/temp_dir.hpp"
#include "mysql/mysql_endpoint.hpp"

namespace outbox::test {

// Paths baked in by CMake, so tests run the binaries of this build tree.
std::string relay_binary();
std::string test_broker_binary();
std::string loadgen_binary();
std::string planner_binary();
std::string outboxctl_binary();
std::string verify_binary();  // outbox-verify
std::string source_dir();

// The MariaDB server the test command started (scripts/local-mariadb.sh writes these
// variables). Throws with a clear message when they are missing: an integration test never
// silently skips.
MysqlEndpoint mysql_endpoint(const std::string& database);

// text with every occurrence of `from` replaced by `to`.
std::string replace_all(std::string text, const std::string& from, const std::string& to);

using harness::read_text_file;
using harness::TempDir;

}  // namespace outbox::test
