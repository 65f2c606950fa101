// outboxctl: the operator's view of the outbox, through the relay's own config file.
//   outboxctl [--config FILE] [--json] COMMAND ARGS...
// FILE defaults to $OUTBOX_RELAY_CONFIG, then /etc/outbox-relay/relay.yaml.
#include <cppconn/exception.h>

#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "command.hpp"
#include "config/config_diagnostics.hpp"
#include "mysql/mysql_error.hpp"
#include "relay_config.hpp"

namespace {

int usage() {
  std::cerr << "usage: outboxctl [--config FILE] [--json] COMMAND ARGS...\n\ncommands:\n";
  for (const outbox::ctl::Command& command : outbox::ctl::commands()) {
    std::cerr << "  " << command.name << " " << command.usage << "\n      " << command.summary
              << "\n";
  }
  return 64;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  const char* env_config = std::getenv("OUTBOX_RELAY_CONFIG");
  std::string config_file = env_config != nullptr ? env_config : "/etc/outbox-relay/relay.yaml";
  bool json = false;
  while (!args.empty() && args[0].rfind("--", 0) == 0) {
    if (args[0] == "--json") {
      json = true;
      args.erase(args.begin());
    } else if (args[0] == "--config" && args.size() >= 2) {
      config_file = args[1];
      args.erase(args.begin(), args.begin() + 2);
    } else {
      return usage();
    }
  }
  if (args.empty()) return usage();
  const outbox::ctl::Command* command = nullptr;
  for (const outbox::ctl::Command& candidate : outbox::ctl::commands()) {
    if (args[0] == candidate.name) command = &candidate;
  }
  if (command == nullptr) return usage();

  outbox::ConfigDiagnostics diagnostics(config_file);
  const auto config =
      outbox::load_relay_config(config_file, outbox::process_environment(), diagnostics);
  if (!config) {
    std::cerr << diagnostics.render();
    return outbox::kExitConfig;
  }
  outbox::init_mysql_driver();
  auto session = outbox::MysqlSession::open(config->mysql, outbox::SessionSettings{});
  if (!session) {
    std::cerr << session.error().message << "\n";
    return 69;  // EX_UNAVAILABLE
  }
  outbox::ctl::CommandContext context{*config, *session.value(),
                                      std::vector<std::string>(args.begin() + 1, args.end()), json};
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
