// outboxctl: the operator's view of the outbox, through the relay's own config file.
//   outboxctl [--config FILE] [--json] COMMAND ARGS...
// FILE defaults to $OUTBOX_RELAY_CONFIG, then /etc/outbox-relay/relay.yaml. It connects with
// the file's outboxctl account when one is set (see operator_settings.hpp), else mysql's.
#include <cppconn/exception.h>

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "command.hpp"
#include "config/config_diagnostics.hpp"
#include "mysql/mysql_error.hpp"
#include "settings/relay_config.hpp"

namespace {

int usage() {
  std::cerr << "usage: outboxctl [--config FILE] [--json] COMMAND ARGS...\n\ncommands:\n";
  for (const outbox::ctl::Command& command : outbox::ctl::commands()) {
    std::cerr << "  " << command.name << " " << command.usage << "\n      " << command.summary
              << "\n";
  }
  return 64;
}

int run(std::vector<std::string> args) {
  const char* env_config = std::getenv("OUTBOX_RELAY_CONFIG");
  std::string config_file = env_config != nullptr ? env_config : "/etc/outbox-relay/relay.yaml";
  for (size_t i = 0; i < args.size() && args[i].rfind("--", 0) == 0;) {
    if (args[i] == "--json") {
      ++i;  // taken out below, wherever it stands
    } else if (args[i] == "--config" && i + 1 < args.size()) {
      config_file = args[i + 1];
      args.erase(args.begin() + static_cast<std::ptrdiff_t>(i),
                 args.begin() + static_cast<std::ptrdiff_t>(i) + 2);
    } else {
      return usage();
    }
  }
  // --json may stand anywhere ("outboxctl backlog --json" as well as before the command).
  const auto json_flag = std::remove(args.begin(), args.end(), std::string("--json"));
  const bool json = json_flag != args.end();
  args.erase(json_flag, args.end());
  if (args.empty()) return usage();
  const outbox::ctl::Command* command = nullptr;
  for (const outbox::ctl::Command& candidate : outbox::ctl::commands()) {
    if (args[0] == candidate.name) command = &candidate;
  }
  if (command == nullptr) return usage();

  outbox::ConfigDiagnostics diagnostics(config_file);
  const auto config =
      outbox::load_outboxctl_config(config_file, outbox::process_environment(), diagnostics);
  if (!config) {
    std::cerr << diagnostics.render();
    return outbox::kExitConfig;
  }
  const outbox::Outcome<outbox::MysqlEndpoint> endpoint =
      outbox::outboxctl_endpoint(config->mysql, config->outboxctl);
  if (!endpoint) {
    std::cerr << config_file << ": " << endpoint.error().message << "\n";
    return outbox::kExitConfig;
  }
  outbox::init_mysql_driver();
  auto session = outbox::MysqlSession::open(endpoint.value(), outbox::SessionSettings{});
  if (!session) {
    std::cerr << session.error().message << "\n";
    return 69;  // EX_UNAVAILABLE
  }
  outbox::ctl::CommandContext context{*config,
                                      endpoint.value(),
                                      *session.value(),
                                      outbox::claim_schema(*config).table(),
                                      std::vector<std::string>(args.begin() + 1, args.end()),
                                      json};
  try {
    const int status = command->run(context);
    if (status == 64) {
      std::cerr << "usage: outboxctl " << command->name << " " << command->usage << "\n";
    }
    return status;
  } catch (const sql::SQLException& e) {
    std::cerr << "outboxctl " << command->name << ": " << outbox::describe_sql_error(e) << "\n";
    return 1;
  }
}

}  // namespace

int main(int argc, char** argv) {
  // Anything else thrown is a bug or an exhausted machine: said in one line with EX_SOFTWARE
  // instead of std::terminate's abort.
  try {
    return run(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const std::exception& e) {
    std::cerr << "outboxctl: " << e.what() << "\n";
    return 70;  // EX_SOFTWARE
  }
}
