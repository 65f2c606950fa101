#pragma once

#include <spdlog/spdlog.h>

#include <functional>
#include <iostream>
#include <optional>
#include <string>

#include "config/config_diagnostics.hpp"
#include "config/env_substitution.hpp"
#include "config/log_section.hpp"
#include "failpoint.hpp"
#include "logging.hpp"
#include "version.hpp"

namespace outbox {

// A daemon configured by one YAML file, as its main() describes it.
template <typename Config>
struct DaemonProgram {
  std::string name;  // "outbox-relay"
  std::string what;  // "run the relay"
  // The one validation path: start-up and --check-config both call it.
  std::function<std::optional<Config>(const std::string&, const EnvLookup&, ConfigDiagnostics&)>
      load;
  std::function<std::string(const Config&)> print;  // effective config, secrets as *****
  std::function<const LogSettings&(const Config&)> log;
  // Runs the program and returns its exit code; gets the file for reloads (SIGHUP).
  std::function<int(const Config&, const std::string& config_file)> run;
  // Optional (--check-db FILE): checks the server the config names, once, prints what it found,
  // and returns the exit code.
  std::function<int(const Config&)> check_db;
};

// The command line every such daemon shares:
//   NAME --config FILE        run
//   NAME --check-config FILE  validate: exit 0, or every problem (FILE:LINE: key: what) and 78
//   NAME --print-config FILE  the effective config, secrets as *****
//   NAME --check-db FILE      (a program with check_db) check the database server, once
//   NAME --version
// Bad usage exits 64. Failpoints are armed (guarded, see failpoint.hpp) only for --config.
// Call block_shutdown_signals() first.
template <typename Config>
int run_daemon_program(int argc, char** argv, const DaemonProgram<Config>& program) {
  const std::string mode = argc >= 2 ? argv[1] : "";
  if (mode == "--version" && argc == 2) {
    std::cout << version_line(program.name) << "\n";
    return 0;
  }
  const bool check_db = mode == "--check-db" && program.check_db;
  if (argc != 3 ||
      (mode != "--config" && mode != "--check-config" && mode != "--print-config" && !check_db)) {
    std::cerr << "usage: " << program.name << " --config FILE       " << program.what << "\n"
              << "       " << program.name
              << " --check-config FILE validate FILE and exit (0 valid, 78 invalid)\n"
              << "       " << program.name
              << " --print-config FILE print the effective config, secrets as *****\n";
    if (program.check_db) {
      std::cerr << "       " << program.name
                << " --check-db FILE     check the database server FILE names and exit (0 "
                   "ready, 78 refused, 69 not reachable or not ready)\n";
    }
    std::cerr << "       " << program.name << " --version\n";
    return 64;  // EX_USAGE
  }
  const std::string file = argv[2];
  ConfigDiagnostics diagnostics(file);
  const std::optional<Config> config = program.load(file, process_environment(), diagnostics);
  if (!config) {
    std::cerr << diagnostics.render() << diagnostics.render_warnings();
    return kExitConfig;
  }
  std::cerr << diagnostics.render_warnings();
  if (mode == "--check-config") {
    std::cout << file << ": configuration is valid\n";
    return 0;
  }
  if (mode == "--print-config") {
    std::cout << program.print(*config);
    return 0;
  }
  if (check_db) return program.check_db(*config);
  if (const Status armed = failpoints::configure_from_environment(); !armed) {
    std::cerr << armed.error().message << "\n";
    return kExitConfig;
  }
  const LogSettings& log = program.log(*config);
  setup_logging(log.level, log.format, program.name);
  // Printed before logging was set up too, but a journal or log collector sees only this.
  for (const ConfigProblem& warning : diagnostics.warnings())
    spdlog::warn("{}", warning.to_string());
  failpoints::warn_armed();
  return program.run(*config, file);
}

}  // namespace outbox
