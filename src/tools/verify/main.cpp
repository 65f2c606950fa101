// outbox-verify: proves the chain's promise (no silent loss; duplicates identifiable and
// harmless; every state queryable by a stable id) by forcing faults into the real processes,
// as section 5 of the seed demands. Flags -> run the windows, the soak or the ordering run ->
// report -> exit code.
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <iostream>

#include "harness/child_process.hpp"
#include "logging.hpp"
#include "mysql/mysql_session.hpp"
#include "ordering_command.hpp"
#include "signal_watcher.hpp"
#include "soak_command.hpp"
#include "verify_options.hpp"
#include "windows_command.hpp"

int main(int argc, char** argv) {
  outbox::block_shutdown_signals();
  std::string error;
  const auto parsed = outbox::verify::parse_command(argc, argv, error);
  if (!parsed || parsed->help) {
    if (!parsed) std::cerr << error << "\n";
    std::cerr << outbox::verify::kUsage;
    return parsed ? 0 : 64;  // EX_USAGE
  }
  outbox::setup_logging("info", outbox::LogFormat::kText, "outbox-verify");
  // Interrupted: nothing the run started may outlive it (relays, consumers, the broker).
  const outbox::SignalWatcher signals(
      [](int signal) {
        spdlog::warn("{}: stopping every process of the run", outbox::signal_name(signal));
        outbox::harness::kill_all_children();
        outbox::verify::stop_soak_servers();
        std::_Exit(130);
      },
      [] {});
  outbox::init_mysql_driver();  // loads the client library the report names
  try {
    if (parsed->soak) return outbox::verify::run_soak_command(*parsed->soak);
    if (parsed->ordering) return outbox::verify::run_ordering_command(*parsed->ordering);
    return outbox::verify::run_windows_command(*parsed->windows);
  } catch (const std::exception& e) {
    // Unwinding stops every process the run started (their handles kill them).
    spdlog::error("verification aborted: {}", e.what());
    return 1;
  }
}
