#pragma once

#include "settings/relay_config.hpp"

namespace outbox {

// Runs the daemon until SIGTERM/SIGINT and a drain: waits for MySQL and Kafka, starts the
// workers, serves metrics and health, logs progress, reloads on SIGHUP (re-reading
// `config_file`). Returns the process exit code (0 after a drain, 78 when the environment
// needs an operator). Call block_shutdown_signals() before anything else.
int run_relay(const RelayConfig& config, const std::string& config_file);

// outbox-relay --check-db: connects once with the relay's settings and runs the start-up checks
// (check_database). Prints the start-up line's finding ("MySQL 9.7.4-2, binlog ROW, table ...")
// and returns 0; a server the relay would refuse (STATEMENT binlog, no SKIP LOCKED, a column the
// configuration names missing) prints why and returns 78; one it would wait for (unreachable,
// schema missing or older, read-only) prints why and returns 69 (EX_UNAVAILABLE).
int check_relay_database(const RelayConfig& config);

}  // namespace outbox
