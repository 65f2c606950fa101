#include "soak_command.hpp"

#include <spdlog/spdlog.h>

#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "own_chain.hpp"
#include "run_setup.hpp"
#include "soak_report.hpp"
#include "soak_run.hpp"
#include "soak_server.hpp"
#include "verification_report.hpp"
#include "versions.hpp"

namespace outbox::verify {
namespace {

std::string replay_command(const SoakCommand& command, uint64_t seed) {
  return "outbox-verify soak --seed " + std::to_string(seed) + " --events " +
         std::to_string(command.events) + " --relays " + std::to_string(command.relays) +
         " --consumers " + std::to_string(command.consumers) + " --faults " +
         std::to_string(command.faults) + " --partitions " + std::to_string(command.partitions) +
         (command.common.kafka == BrokerKind::kReal ? " --kafka real" : "");
}

std::string kinds_summary(const std::vector<Fault>& schedule) {
  std::map<std::string, int> kinds;
  for (const Fault& fault : schedule)
    ++kinds[fault_kind_name(fault.kind)];
  std::string text;
  for (const auto& [kind, count] : kinds)
    text += (text.empty() ? "" : ", ") + kind + " " + std::to_string(count);
  return text;
}

}  // namespace

int run_soak_command(const SoakCommand& command) {
  std::string error;
  std::optional<RunSetup> setup = prepare_run(command.common, "soak", error);
  if (!setup) {
    spdlog::error("{}", error);
    return 69;
  }
  const uint64_t seed = command.seed.value_or(std::random_device{}());
  ScheduleShape shape;
  shape.faults = command.faults;
  shape.relays = command.relays;
  shape.consumers = command.consumers;
  shape.broker = command.common.kafka;
  const std::vector<Fault> schedule = make_schedule(seed, shape);
  const std::string replay = replay_command(command, seed);
  spdlog::info("soak {}: seed {} (replay: {})", setup->experiment_id, seed, replay);
  spdlog::info("schedule: {} faults over {:.0f}s: {}", schedule.size(), schedule_end_s(schedule),
               kinds_summary(schedule));
  {
    std::ofstream out(setup->work_dir + "/schedule.txt");
    out << "seed " << seed << "\n";
    for (const Fault& fault : schedule)
      out << describe(fault) << "\n";
  }

  std::optional<OwnChain> own =
      start_own_chain(*setup, command.common, command.mariadb_dir, command.partitions, error);
  if (!own) {
    spdlog::error("cannot set the soak up: {}", error);
    return 69;
  }
  SoakServer* const server = own->server.get();
  Chain* const chain = own->chain.get();
  spdlog::info(
      "MariaDB of the soak on port {} (data in {}), {} Kafka at {}, relay.ordering {}, files in {}",
      server->endpoint().port, server->dir(), broker_kind_name(command.common.kafka),
      chain->bootstrap(),
      command.common.ordering.empty() ? "per_aggregate" : command.common.ordering, setup->work_dir);

  const SoakShape soak_shape{command.events, command.relays, command.consumers, shape.writers};
  SoakRun run(*chain, *server, soak_shape, schedule);
  SoakSummary summary;
  summary.experiment_id = setup->experiment_id;
  summary.database = setup->database;
  summary.seed = seed;
  summary.replay = replay;
  summary.shape = soak_shape;
  summary.partitions = command.partitions;
  summary.run_problem = run.run();
  summary.versions = collect_versions(setup->programs, chain->sql(), chain->broker());
  const SoakVerdict verdict = judge_soak(summary, *chain, run);
  if (!write_report(command.common, emit_yaml(verdict.report), error)) spdlog::error("{}", error);
  std::istringstream table(verdict.table);
  spdlog::info("duplicates per fault kind (seed {}):", seed);
  for (std::string line; std::getline(table, line);)
    spdlog::info("  {}", line);
  spdlog::info("soak {}: {} (seed {}; replay: {})", setup->experiment_id,
               verdict.passed ? "PASS" : "FAIL", seed, replay);
  if (!verdict.passed || command.common.keep) {
    if (setup->owned_dir) setup->owned_dir->keep();
    spdlog::info("kept for inspection: {}", setup->work_dir);
  }
  return verdict.passed ? 0 : 1;
}

void stop_soak_servers() {
  stop_all_soak_servers();
}

}  // namespace outbox::verify
