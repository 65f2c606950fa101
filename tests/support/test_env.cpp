#include "test_env.hpp"

#include <cstdlib>
#include <stdexcept>

namespace outbox::test {
namespace {

std::string required_env(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') {
    throw std::runtime_error(std::string(name) +
                             " is not set: run the tests through scripts/test.sh, which starts "
                             "MariaDB and exports it");
  }
  return value;
}

}  // namespace

std::string relay_binary() {
  return OUTBOX_RELAY_BIN;
}
std::string test_broker_binary() {
  return OUTBOX_TEST_BROKER_BIN;
}
std::string loadgen_binary() {
  return OUTBOX_LOADGEN_BIN;
}
std::string planner_binary() {
  return OUTBOX_PLANNER_BIN;
}
std::string outboxctl_binary() {
  return OUTBOX_OUTBOXCTL_BIN;
}
std::string verify_binary() {
  return OUTBOX_VERIFY_BIN;
}
std::string source_dir() {
  return OUTBOX_SOURCE_DIR;
}

MysqlEndpoint mysql_endpoint(const std::string& database) {
  MysqlEndpoint endpoint;
  endpoint.host = required_env("OUTBOX_MYSQL_HOST");
  endpoint.port = std::stoi(required_env("OUTBOX_MYSQL_PORT"));
  endpoint.user = required_env("OUTBOX_MYSQL_USER");
  endpoint.password = required_env("OUTBOX_MYSQL_PASSWORD");
  endpoint.database = database;
  return endpoint;
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = 0; (at = text.find(from, at)) != std::string::npos; at += to.size()) {
    text.replace(at, from.size(), to);
  }
  return text;
}

}  // namespace outbox::test
