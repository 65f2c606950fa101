#pragma once

#include "relay_config.hpp"

namespace outbox {

// Runs the daemon until SIGTERM/SIGINT and a drain: waits for MySQL and Kafka, starts the
// workers, serves metrics and health, logs progress, reloads on SIGHUP (re-reading
// `config_file`). Returns the process exit code (0 after a drain, 78 when the environment
// needs an operator). Call block_shutdown_signals() before anything else.
int run_relay(const RelayConfig& config, const std::string& config_file);

}  // namespace outbox
