// notification-planner: the seed's example consumer. Reads ORDER_ACCEPTED events from Kafka
// and plans one notification_job per event, at most once, through the consumer library.
// Flags -> config -> run -> exit code.
#include "daemon_cli.hpp"
#include "planner_app.hpp"
#include "planner_config.hpp"
#include "signal_watcher.hpp"

int main(int argc, char** argv) {
  outbox::block_shutdown_signals();
  const outbox::DaemonProgram<outbox::planner::PlannerConfig> planner{
      "notification-planner",
      "run the consumer",
      outbox::planner::load_planner_config,
      outbox::planner::print_planner_config,
      [](const outbox::planner::PlannerConfig& config) -> const outbox::LogSettings& {
        return config.log;
      },
      [](const outbox::planner::PlannerConfig& config, const std::string& /*config_file*/) {
        return outbox::planner::run_planner(config);
      },
      {},  // no --check-db: the planner checks its own schema at start-up
  };
  return outbox::run_daemon_program(argc, argv, planner);
}
