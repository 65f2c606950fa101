#include "windows_command.hpp"

#include <spdlog/spdlog.h>

#include "run_setup.hpp"
#include "seven_windows.hpp"
#include "verification_report.hpp"
#include "versions.hpp"

namespace outbox::verify {

int run_windows_command(const WindowsCommand& command) {
  std::string error;
  std::optional<RunSetup> run = prepare_run(command.common, "windows", error);
  if (!run) {
    spdlog::error("{}", error);
    return 69;
  }
  spdlog::info("experiment {}: database {} on {}:{}, {} Kafka, files in {}", run->experiment_id,
               run->database, command.server.host, command.server.port,
               broker_kind_name(command.common.kafka), run->work_dir);
  ChainSetup setup{run->programs, command.server, run->database, run->work_dir};
  setup.broker = command.common.kafka;
  setup.relay_ordering = command.common.ordering;
  std::unique_ptr<Chain> chain;
  try {
    chain = std::make_unique<Chain>(setup);
  } catch (const std::exception& e) {
    spdlog::error("cannot set the chain up: {}", e.what());
    if (run->owned_dir) run->owned_dir->keep();
    return 69;
  }

  WindowsEvidence evidence;
  evidence.experiment_id = run->experiment_id;
  evidence.database = run->database;
  evidence.broker = broker_kind_name(command.common.kafka);
  evidence.ordering = command.common.ordering.empty() ? "per_aggregate" : command.common.ordering;
  {
    SevenWindows windows(*chain, WindowsOptions{command.windows, command.without_fault});
    evidence.injections = windows.run();
    windows.stop_all(evidence.shutdown_problem);
    evidence.redeliveries = windows.redeliveries();
    evidence.state_lookups = windows.state_lookups();
    evidence.planner_logs = windows.planner_logs();
  }
  evidence.topic = chain->order_topic();
  evidence.versions = collect_versions(run->programs, chain->sql(), chain->broker());
  bool passed = false;
  const std::string yaml = emit_yaml(build_report(evidence, chain->sql(), passed));
  if (!write_report(command.common, yaml, error)) spdlog::error("{}", error);

  const bool keep = command.common.keep || !passed;
  if (keep) {
    if (run->owned_dir) run->owned_dir->keep();
    spdlog::info("kept for inspection: database {}, files in {}", run->database, run->work_dir);
  } else {
    chain->sql().exec("DROP DATABASE `" + run->database + "`");
  }
  spdlog::info("experiment {}: {}", run->experiment_id, passed ? "PASS" : "FAIL");
  return passed ? 0 : 1;
}

}  // namespace outbox::verify
