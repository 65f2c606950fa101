#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>

#include "broker_kind.hpp"
#include "mysql/mysql_endpoint.hpp"

namespace outbox::verify {

// What both commands share: where the programs are, where files go, where the report goes.
struct CommonOptions {
  std::string bin_dir;   // empty: this build's binaries
  std::string work_dir;  // empty: a fresh directory under /tmp
  std::string report;    // empty: stdout
  bool keep = false;     // keep the work directory and the database even when everything passed
  BrokerKind kafka = BrokerKind::kMock;  // --kafka mock|real
  std::string kafka_script;              // --kafka-script; empty: this source tree's
  std::string ordering;  // --ordering none|per_aggregate|transactional; empty: the default
};

// outbox-verify [windows]: the seven windows and the seed's report.
struct WindowsCommand {
  CommonOptions common;
  MysqlEndpoint server;  // an account that may create a database
  std::set<int> windows{1, 2, 3, 4, 5, 6, 7};
  std::optional<int> without_fault;
};

// outbox-verify soak: the chaos soak.
struct SoakCommand {
  CommonOptions common;
  int64_t events = 50000;
  int relays = 3;
  int consumers = 2;
  int faults = 100;
  std::optional<uint64_t> seed;  // none: a random seed, printed
  int partitions = 16;
  std::string mariadb_dir;  // the soak's own MariaDB (restarted by a fault); empty: in work_dir
};

// outbox-verify ordering: per-aggregate order through relay kills and broker faults.
struct OrderingCommand {
  CommonOptions common;
  int aggregates = 300;
  int versions = 30;  // per aggregate; the first half is a backlog, the rest written live
  int relays = 3;
  int faults = 8;  // alternately a relay killed -9 and a broker fault
  int partitions = 8;
  std::string mariadb_dir;  // its own MariaDB; empty: in work_dir
};

struct ParsedCommand {
  std::optional<WindowsCommand> windows;
  std::optional<SoakCommand> soak;
  std::optional<OrderingCommand> ordering;
  bool help = false;
};

extern const char* const kUsage;

// The command, or nullopt with `error` naming the bad argument. MySQL defaults come from
// OUTBOX_MYSQL_HOST/PORT/USER/PASSWORD (what scripts/local-mariadb.sh exports).
std::optional<ParsedCommand> parse_command(int argc, const char* const* argv, std::string& error);

}  // namespace outbox::verify
