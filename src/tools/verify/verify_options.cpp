#include "verify_options.hpp"

#include <charconv>
#include <cstdlib>
#include <sstream>
#include <string_view>
#include <vector>

namespace outbox::verify {

const char* const kUsage =
    "usage: outbox-verify [windows] [--windows 1,2,...] [--without-fault N]\n"
    "                     [--host H] [--port P] [--user U] [--password W] [COMMON]\n"
    "       outbox-verify soak [--events N] [--relays N] [--consumers N] [--faults N]\n"
    "                     [--seed N] [--partitions N] [--mariadb-dir DIR] [COMMON]\n"
    "       outbox-verify ordering [--aggregates N] [--versions N] [--relays N] [--faults N]\n"
    "                     [--partitions N] [--mariadb-dir DIR] [COMMON]\n"
    "COMMON: [--kafka mock|real] [--kafka-script FILE] [--bin-dir DIR] [--work-dir DIR]\n"
    "        [--report FILE] [--keep] [--ordering none|per_aggregate|transactional]\n"
    "  windows (the default) forces a fault in each of the seven windows of the chain (writer ->\n"
    "  outbox -> relay -> broker -> consumer) against the MariaDB server given (a fresh database\n"
    "  on it) and a broker of its own, and writes the repeatableDeliveryVerification report.\n"
    "  --kafka mock (the default) runs librdkafka's mock cluster (outbox-test-broker); --kafka\n"
    "  real a 3-node Apache Kafka cluster started by scripts/kafka-cluster.sh (--kafka-script\n"
    "  FILE: where that script is; default: the source tree this verifier was built from).\n"
    "  --without-fault N runs window N without its fault: a self-test, the report must FAIL.\n"
    "  --ordering sets relay.ordering of every relay started (default: the relay's own,\n"
    "  per_aggregate); transactional's consumers read read_committed, as the planner does.\n"
    "  soak runs the whole chain under a randomised schedule of faults, on a MariaDB server of\n"
    "  its own that it restarts (scripts/local-mariadb.sh under --mariadb-dir), and prints the\n"
    "  seed: --seed N replays the schedule.\n"
    "  ordering writes N aggregates x N versions (half a backlog, half while the relays run),\n"
    "  publishes them with --relays relays while --faults faults hit them (a relay killed -9\n"
    "  and restarted, then a broker fault: the mock's produce errors, or a real node killed -9\n"
    "  and restarted), and reads the topic back with kcat: every version of every aggregate\n"
    "  published and its first occurrence in version order. Exit 0 when everything held, 1 when "
    "something\n"
    "  failed, 64 bad usage, 69 when the chain could not be set up. The MySQL password may come\n"
    "  from OUTBOX_MYSQL_PASSWORD.\n";

namespace {

template <typename Number>
bool parse_number(std::string_view text, Number& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

std::string env_or(const char* name, const std::string& fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : fallback;
}

std::optional<std::set<int>> window_list(const std::string& text) {
  std::set<int> windows;
  std::istringstream items(text);
  for (std::string item; std::getline(items, item, ',');) {
    int window = 0;
    if (!parse_number(item, window) || window < 1 || window > 7) return std::nullopt;
    windows.insert(window);
  }
  if (windows.empty()) return std::nullopt;
  return windows;
}

// Flags every command takes; true when `flag` was one of them (`valid`: whether its value was).
bool common_flag(std::string_view flag, const std::string& value, CommonOptions& common,
                 bool& valid) {
  if (flag == "--bin-dir") {
    common.bin_dir = value;
  } else if (flag == "--work-dir") {
    common.work_dir = value;
  } else if (flag == "--report") {
    common.report = value;
  } else if (flag == "--kafka") {
    const std::optional<BrokerKind> kind = broker_kind_named(value);
    valid = kind.has_value();
    if (valid) common.kafka = *kind;
  } else if (flag == "--kafka-script") {
    common.kafka_script = value;
  } else if (flag == "--ordering") {
    valid = value == "none" || value == "per_aggregate" || value == "transactional";
    if (valid) common.ordering = value;
  } else {
    return false;
  }
  return true;
}

// The flags of `ordering`; true when `flag` was one of them (`valid`: whether its value was).
bool ordering_flag(std::string_view flag, const std::string& value, OrderingCommand& command,
                   bool& valid) {
  if (flag == "--aggregates") {
    valid = parse_number(value, command.aggregates) && command.aggregates >= 1;
  } else if (flag == "--versions") {
    valid = parse_number(value, command.versions) && command.versions >= 2;
  } else if (flag == "--relays") {
    valid = parse_number(value, command.relays) && command.relays >= 1 && command.relays <= 9;
  } else if (flag == "--faults") {
    valid = parse_number(value, command.faults) && command.faults >= 0;
  } else if (flag == "--partitions") {
    valid = parse_number(value, command.partitions) && command.partitions >= 1;
  } else if (flag == "--mariadb-dir") {
    command.mariadb_dir = value;
  } else {
    return false;
  }
  return true;
}

}  // namespace

std::optional<ParsedCommand> parse_command(int argc, const char* const* argv, std::string& error) {
  ParsedCommand parsed;
  std::vector<std::string_view> args(argv + 1, argv + argc);
  const bool soak = !args.empty() && args[0] == "soak";
  const bool ordering = !args.empty() && args[0] == "ordering";
  if (!args.empty() && (soak || ordering || args[0] == "windows")) args.erase(args.begin());
  WindowsCommand windows;
  windows.server.host = env_or("OUTBOX_MYSQL_HOST", "127.0.0.1");
  windows.server.user = env_or("OUTBOX_MYSQL_USER", "outbox");
  windows.server.password = env_or("OUTBOX_MYSQL_PASSWORD", "");
  if (!parse_number(env_or("OUTBOX_MYSQL_PORT", "3306"), windows.server.port)) {
    error = "OUTBOX_MYSQL_PORT is not a port number";
    return std::nullopt;
  }
  SoakCommand soak_command;
  OrderingCommand ordering_command;
  CommonOptions& common = soak       ? soak_command.common
                          : ordering ? ordering_command.common
                                     : windows.common;
  const bool windows_flags = !soak && !ordering;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string_view flag = args[i];
    if (flag == "--help" || flag == "-h") {
      parsed.help = true;
      return parsed;
    }
    if (flag == "--keep") {
      common.keep = true;
      continue;
    }
    if (i + 1 >= args.size()) {
      error = std::string(flag) + " needs a value";
      return std::nullopt;
    }
    const std::string value(args[++i]);
    bool valid = true;
    if (common_flag(flag, value, common, valid)) {
      // parsed above
    } else if (windows_flags && flag == "--host") {
      windows.server.host = value;
    } else if (windows_flags && flag == "--port") {
      valid = parse_number(value, windows.server.port) && windows.server.port > 0;
    } else if (windows_flags && flag == "--user") {
      windows.server.user = value;
    } else if (windows_flags && flag == "--password") {
      windows.server.password = value;
    } else if (windows_flags && flag == "--windows") {
      const auto list = window_list(value);
      valid = list.has_value();
      if (valid) windows.windows = *list;
    } else if (windows_flags && flag == "--without-fault") {
      int window = 0;
      valid = parse_number(value, window) && window >= 1 && window <= 7;
      windows.without_fault = window;
    } else if (soak && flag == "--events") {
      valid = parse_number(value, soak_command.events) && soak_command.events > 0;
    } else if (soak && flag == "--relays") {
      valid = parse_number(value, soak_command.relays) && soak_command.relays >= 1 &&
              soak_command.relays <= 9;
    } else if (soak && flag == "--consumers") {
      valid = parse_number(value, soak_command.consumers) && soak_command.consumers >= 1 &&
              soak_command.consumers <= 9;
    } else if (soak && flag == "--faults") {
      valid = parse_number(value, soak_command.faults) && soak_command.faults >= 0;
    } else if (soak && flag == "--seed") {
      uint64_t seed = 0;
      valid = parse_number(value, seed);
      soak_command.seed = seed;
    } else if (soak && flag == "--partitions") {
      valid = parse_number(value, soak_command.partitions) && soak_command.partitions >= 1;
    } else if (soak && flag == "--mariadb-dir") {
      soak_command.mariadb_dir = value;
    } else if (ordering && !ordering_flag(flag, value, ordering_command, valid)) {
      error = "unknown option " + std::string(flag) + " for ordering";
      return std::nullopt;
    } else if (!ordering) {
      error = "unknown option " + std::string(flag) + (soak ? " for soak" : "");
      return std::nullopt;
    }
    if (!valid) {
      error = std::string(flag) + ": invalid value \"" + value + "\"";
      return std::nullopt;
    }
  }
  if (soak) {
    parsed.soak = soak_command;
  } else if (ordering) {
    parsed.ordering = ordering_command;
  } else {
    parsed.windows = windows;
  }
  return parsed;
}

}  // namespace outbox::verify
