#pragma once

#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>

#include "harness/mariadb_cli.hpp"

namespace outbox::verify {

// What outbox-loadgen (the writer library's order service) reported, from its output: the
// summary line it ends with, and the commit it could not confirm.
struct WriterSummary {
  long long accepted = 0;
  long long committed = 0;          // by its own COMMIT
  long long already_accepted = 0;   // a (re)submission found the request stored
  long long unknown = 0;            // COMMITs whose outcome was unknown
  long long reconciled_found = 0;   // ... found committed on the primary: not resubmitted
  long long reconciled_absent = 0;  // ... absent: resubmitted with the same ids
  long long retried = 0;            // confirmed rollbacks resubmitted
  bool done = false;
};
std::optional<WriterSummary> writer_summary(const std::string& output);
// The summary as report evidence.
YAML::Node summary_yaml(const WriterSummary& summary);

// "COMMIT of order N (request R, event E) failed: <error>" from the writer's log.
struct UnknownCommit {
  std::string event_id;
  std::string error;
};
std::optional<UnknownCommit> unknown_commit(const std::string& output);

// The server's id of the one session of `database` that sits idle inside an open transaction
// that modified exactly `rows` rows (a writer waiting at its COMMIT), or nullopt.
std::optional<std::string> session_waiting_at_commit(const harness::MariadbCli& sql,
                                                     const std::string& database, int rows);

// What a dirty read (READ UNCOMMITTED, from another session) sees of order_id: its order rows
// and its event id ("" when none), committed or not.
struct DirtyOrder {
  long long orders = 0;
  std::string event_id;
};
DirtyOrder dirty_read_order(const harness::MariadbCli& sql, long long tenant, long long order_id);

}  // namespace outbox::verify
