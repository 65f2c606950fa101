#pragma once

#include <string>

#include "mysql/mysql_session.hpp"

namespace outbox {

enum class CheckVerdict {
  kOk,
  kRetry,  // may fix itself (migrations still running): wait and check again
  kFatal,  // needs an operator: exit with EX_CONFIG
};

struct CheckResult {
  CheckVerdict verdict = CheckVerdict::kOk;
  std::string message;
};

// What the relay needs from the server before it claims anything: SKIP LOCKED support, a
// binlog format under which SKIP LOCKED replicates safely, the schema of sql/ (table,
// columns, the claim indexes), checked by running the claim scans with LIMIT 0, and a server
// that accepts the relay's writes (not read-only), checked by an UPDATE that changes nothing.
CheckResult check_database(MysqlSession& session);

}  // namespace outbox
