#pragma once

#include <map>
#include <string>

#include "child_process.hpp"
#include "harness/daemon_process.hpp"
#include "harness/service_configs.hpp"
#include "test_database.hpp"
#include "test_env.hpp"

namespace outbox::test {

// Where the relay publishes order events by default, and the planner's dead letters in tests.
inline const std::string kOrderTopic = "outbox.order";
inline const std::string kOrderDeadLetterTopic = "outbox.order.dead-letter";

// Settings of a notification-planner config file written for a test.
struct PlannerTestConfig : harness::PlannerConfigSettings {
  int mysql_port = 0;  // 0: the test server's; else e.g. a TcpProxy in front of it
};

std::string planner_config_yaml(const TestDatabase& db, const std::string& bootstrap,
                                const PlannerTestConfig& settings);

// A notification-planner process with its own config file and log (level debug: one line per
// applied event).
class PlannerProcess {
 public:
  PlannerProcess(const TestDatabase& db, const std::string& bootstrap,
                 const PlannerTestConfig& settings,
                 const std::map<std::string, std::string>& extra_env = {});
  ChildProcess& process() { return daemon_.process(); }
  std::string log() const { return daemon_.log(); }
  // How many times `text` occurs in the log so far.
  int count(const std::string& text) const { return daemon_.count(text); }
  // SIGTERM, then the exit status must be 0 (the drain path).
  void stop_gracefully();

 private:
  TempDir dir_;
  harness::DaemonProcess daemon_;
};

}  // namespace outbox::test
