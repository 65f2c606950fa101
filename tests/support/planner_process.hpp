#pragma once

#include <map>
#include <memory>
#include <string>

#include "child_process.hpp"
#include "test_database.hpp"
#include "test_env.hpp"

namespace outbox::test {

// Where the relay publishes order events by default, and the planner's dead letters in tests.
inline const std::string kOrderTopic = "outbox.order";
inline const std::string kOrderDeadLetterTopic = "outbox.order.dead-letter";

// Settings of a notification-planner config file written for a test.
struct PlannerTestConfig {
  std::string name;      // consumer.name; empty: the default (notification-planner)
  std::string group_id;  // empty: the consumer name
  std::string topic = kOrderTopic;
  std::string dead_letter_topic = kOrderDeadLetterTopic;
  std::string backoff_initial = "50ms";
  std::string backoff_max = "400ms";
  int mysql_port = 0;  // 0: the test server's; else e.g. a TcpProxy in front of it
  // A killed member is evicted after this, so a restarted one gets its partitions quickly.
  std::string session_timeout_ms = "3000";
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
  ChildProcess& process() { return *process_; }
  std::string log() const { return process_->output(); }
  // How many times `text` occurs in the log so far.
  int count(const std::string& text) const;
  // SIGTERM, then the exit status must be 0 (the drain path).
  void stop_gracefully();

 private:
  TempDir dir_;
  std::unique_ptr<ChildProcess> process_;
};

}  // namespace outbox::test
