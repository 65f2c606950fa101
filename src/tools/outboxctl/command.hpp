#pragma once

#include <string>
#include <vector>

#include "mysql/mysql_session.hpp"
#include "relay_config.hpp"

namespace outbox::ctl {

// What every outboxctl command gets: the relay's config (same file), a session on the
// outbox database, its arguments, and whether to answer in JSON.
struct CommandContext {
  const RelayConfig& config;
  MysqlSession& session;
  std::vector<std::string> args;
  bool json = false;
};

// A command prints its answer on stdout and returns the process exit code: 0 done, 1 the
// request could not be carried out (the message says why), 64 bad usage.
using CommandFunction = int (*)(CommandContext& context);

struct Command {
  const char* name;
  const char* usage;    // arguments, e.g. "<event_id> | --all-failed"
  const char* summary;  // one line for --help
  CommandFunction run;
};

// Every command, in --help order. Each lives in its own file.
const std::vector<Command>& commands();

// JSON string literal of text (quotes, backslashes and control characters escaped).
std::string json_string(const std::string& text);

}  // namespace outbox::ctl
