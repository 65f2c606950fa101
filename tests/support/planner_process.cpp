#include "planner_process.hpp"

#include <signal.h>
#include <catch2/catch.hpp>

#include <chrono>

namespace outbox::test {

std::string planner_config_yaml(const TestDatabase& db, const std::string& bootstrap,
                                const PlannerTestConfig& settings) {
  return harness::planner_config_yaml(mysql_section_yaml(db, settings.mysql_port), bootstrap,
                                      settings);
}

PlannerProcess::PlannerProcess(const TestDatabase& db, const std::string& bootstrap,
                               const PlannerTestConfig& settings,
                               const std::map<std::string, std::string>& extra_env)
    : daemon_(planner_binary(), dir_.path(), "planner",
              planner_config_yaml(db, bootstrap, settings), extra_env) {}

void PlannerProcess::stop_gracefully() {
  daemon_.process().signal(SIGTERM);
  const auto status = daemon_.process().wait_exit(std::chrono::seconds(60));
  INFO(log());
  REQUIRE(status.has_value());
  CHECK(*status == 0);
}

}  // namespace outbox::test
