#pragma once

#include <string>
#include <vector>

#include "answer_value.hpp"
#include "mysql/mysql_endpoint.hpp"
#include "mysql/mysql_session.hpp"
#include "outbox_lookups.hpp"
#include "settings/relay_config.hpp"

namespace outbox::ctl {

// What every outboxctl command gets: the relay's config (same file), the account it connected
// with, a session on the outbox database, its arguments, and whether to answer in JSON.
struct CommandContext {
  const RelayConfig& config;
  const MysqlEndpoint& endpoint;
  MysqlSession& session;
  // The outbox table (mysql.table), quoted for statements.
  std::string outbox_table;
  std::vector<std::string> args;
  bool json = false;
};

// The outbox table as the lookups read it.
inline OutboxTable lookup_table(const CommandContext& context) {
  return OutboxTable{context.outbox_table, context.config.kafka.message.trace_context};
}

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

// Prints the answer on stdout, as one JSON document or as text.
void print_answer(const CommandContext& context, const Value& answer);

// A request that cannot be carried out (unknown event, refused window): in JSON the answer
// with an "error" field on stdout, in text the message on stderr. Returns exit code 1.
int refuse(const CommandContext& context, Value answer, const std::string& message);

}  // namespace outbox::ctl
