// outbox-relay: moves committed outbox_event rows from MySQL to Kafka
// (claim -> publish -> mark). Flags -> config -> run -> exit code.
#include <librdkafka/rdkafka.h>
#include <mysql_driver.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <iostream>
#include <string>

#include "build_info.hpp"
#include "config/config_diagnostics.hpp"
#include "failpoint.hpp"
#include "logging.hpp"
#include "relay_app.hpp"
#include "relay_config.hpp"
#include "signal_watcher.hpp"

namespace {

constexpr const char* kUsage =
    "usage: outbox-relay --config FILE       run the relay\n"
    "       outbox-relay --check-config FILE validate FILE and exit (0 valid, 78 invalid)\n"
    "       outbox-relay --print-config FILE print the effective config, secrets as *****\n"
    "       outbox-relay --version\n";

void print_version() {
  sql::mysql::MySQL_Driver* driver = sql::mysql::get_mysql_driver_instance();
  std::cout << "outbox-relay " << outbox::kVersion << " (librdkafka " << rd_kafka_version_str()
            << ", MySQL Connector/C++ " << driver->getMajorVersion() << "."
            << driver->getMinorVersion() << "." << driver->getPatchVersion() << ")\n";
}

}  // namespace

int main(int argc, char** argv) {
  outbox::block_shutdown_signals();
  const std::string mode = argc >= 2 ? argv[1] : "";
  if (mode == "--version" && argc == 2) {
    print_version();
    return 0;
  }
  if (argc != 3 || (mode != "--config" && mode != "--check-config" && mode != "--print-config")) {
    std::cerr << kUsage;
    return 64;  // EX_USAGE
  }
  const std::string file = argv[2];
  outbox::ConfigDiagnostics diagnostics(file);
  const std::optional<outbox::RelayConfig> config =
      outbox::load_relay_config(file, outbox::process_environment(), diagnostics);
  if (!config) {
    std::cerr << diagnostics.render();
    return outbox::kExitConfig;
  }
  if (mode == "--check-config") {
    std::cout << file << ": configuration is valid\n";
    return 0;
  }
  if (mode == "--print-config") {
    std::cout << outbox::print_relay_config(*config);
    return 0;
  }
  if (const outbox::Status armed = outbox::failpoints::configure_from_environment(); !armed) {
    std::cerr << armed.error().message << "\n";
    return outbox::kExitConfig;
  }
  outbox::setup_logging(config->log.level, config->log.format, "outbox-relay");
  for (const std::string& point : outbox::failpoints::armed()) {
    spdlog::warn("FAILPOINT ARMED: {} (fault-injection testing only)", point);
  }
  return outbox::run_relay(*config, file);
}
