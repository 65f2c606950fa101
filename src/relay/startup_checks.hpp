#pragma once

#include <string>
#include <utility>
#include <vector>

#include "lease_store/lease_sql.hpp"
#include "mysql/mysql_session.hpp"
#include "publish/message_settings.hpp"

namespace outbox {

enum class CheckVerdict {
  kOk,
  kRetry,  // may fix itself (migrations still running): wait and check again
  kFatal,  // needs an operator: exit with EX_CONFIG
};

struct CheckResult {
  CheckResult() = default;
  CheckResult(CheckVerdict verdict_, std::string message_, std::string warning_ = "")
      : verdict(verdict_), message(std::move(message_)), warning(std::move(warning_)) {}

  CheckVerdict verdict = CheckVerdict::kOk;
  std::string message;
  // With kOk: what works but will not move without an operator (rows whose status the relay
  // does not know), for a warning at start-up and from --check-db. "" for nothing.
  std::string warning;
};

// The live outbox table against what the configuration asks of it.
struct SchemaExpectation {
  lease_sql::Schema schema;        // mysql.table and the message columns
  std::vector<ColumnUse> columns;  // every column the config names, with its key and line
  std::string config_file;         // for "FILE:LINE: key: what" messages
};

// What the relay needs from the server before it claims anything: SKIP LOCKED support, a
// binlog format under which SKIP LOCKED replicates safely, every column the configuration
// names (kafka.key_column, kafka.headers, kafka.trace_context) present in the table (an unknown
// one is a configuration error naming key and column: fatal), the schema of sql/ (table,
// columns, the claim indexes), checked by running the claim scans with LIMIT 0, and a server
// that accepts the relay's writes (not read-only), checked by an UPDATE that changes nothing.
// Rows whose status is none of the relay's (an adopted table, a legacy status) are a warning:
// they are never published, and with per-aggregate ordering they hold their aggregate back.
CheckResult check_database(MysqlSession& session, const SchemaExpectation& expected);

}  // namespace outbox
