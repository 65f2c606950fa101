// outbox-relay: moves committed outbox_event rows from MySQL to Kafka
// (claim -> publish -> mark). Flags -> config -> run -> exit code.
#include "daemon_cli.hpp"
#include "relay_app.hpp"
#include "settings/relay_config.hpp"
#include "signal_watcher.hpp"

int main(int argc, char** argv) {
  outbox::block_shutdown_signals();
  const outbox::DaemonProgram<outbox::RelayConfig> relay{
      "outbox-relay",
      "run the relay",
      outbox::load_relay_config,
      outbox::print_relay_config,
      [](const outbox::RelayConfig& config) -> const outbox::LogSettings& { return config.log; },
      outbox::run_relay,
      outbox::check_relay_database,
  };
  return outbox::run_daemon_program(argc, argv, relay);
}
