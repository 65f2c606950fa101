#include "planner_process.hpp"

#include <signal.h>
#include <catch2/catch.hpp>

#include <chrono>

namespace outbox::test {

std::string planner_config_yaml(const TestDatabase& db, const std::string& bootstrap,
                                const PlannerTestConfig& settings) {
  std::string yaml = mysql_section_yaml(db, settings.mysql_port);
  yaml += "kafka:\n";
  yaml += "  bootstrap_servers: " + bootstrap + "\n";
  yaml += "  topics: [" + settings.topic + "]\n";
  if (!settings.group_id.empty()) yaml += "  group_id: " + settings.group_id + "\n";
  yaml += "  properties:\n";
  yaml += "    log.connection.close: \"false\"\n";
  yaml += "    session.timeout.ms: \"" + settings.session_timeout_ms + "\"\n";
  yaml += "    heartbeat.interval.ms: \"500\"\n";
  yaml += "consumer:\n";
  if (!settings.name.empty()) yaml += "  name: " + settings.name + "\n";
  yaml += "  dead_letter_topic: " + settings.dead_letter_topic + "\n";
  yaml += "  backoff_initial: " + settings.backoff_initial + "\n";
  yaml += "  backoff_max: " + settings.backoff_max + "\n";
  yaml += "log:\n";
  yaml += "  level: debug\n";
  yaml += "  stats_interval: 1s\n";
  return yaml;
}

PlannerProcess::PlannerProcess(const TestDatabase& db, const std::string& bootstrap,
                               const PlannerTestConfig& settings,
                               const std::map<std::string, std::string>& extra_env) {
  const std::string config =
      dir_.write("planner.yaml", planner_config_yaml(db, bootstrap, settings));
  process_ =
      std::make_unique<ChildProcess>(std::vector<std::string>{planner_binary(), "--config", config},
                                     dir_.file("planner.log"), extra_env);
}

int PlannerProcess::count(const std::string& text) const {
  const std::string output = log();
  int found = 0;
  for (size_t at = 0; (at = output.find(text, at)) != std::string::npos; at += text.size())
    ++found;
  return found;
}

void PlannerProcess::stop_gracefully() {
  process_->signal(SIGTERM);
  const auto status = process_->wait_exit(std::chrono::seconds(60));
  INFO(log());
  REQUIRE(status.has_value());
  CHECK(*status == 0);
}

}  // namespace outbox::test
