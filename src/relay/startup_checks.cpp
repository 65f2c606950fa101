#include "startup_checks.hpp"

#include <cppconn/exception.h>

#include <algorithm>
#include <array>
#include <cctype>

#include "config/config_diagnostics.hpp"
#include "lease_store/table_columns.hpp"
#include "mysql/mysql_error.hpp"

namespace outbox {
namespace {

bool same_column(const std::string& a, const std::string& b) {
  // MySQL column names are case-insensitive.
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](unsigned char x, unsigned char y) {
    return std::tolower(x) == std::tolower(y);
  });
}

// Every configured column the table lacks, as config problems.
ConfigDiagnostics missing_columns(const std::vector<TableColumn>& live,
                                  const SchemaExpectation& expected) {
  ConfigDiagnostics problems(expected.config_file);
  const std::string& table = expected.schema.table_name();
  for (const ColumnUse& use : expected.columns) {
    const bool present = std::any_of(live.begin(), live.end(), [&](const TableColumn& column) {
      return same_column(column.name, use.column);
    });
    if (present) continue;
    if (use.key_path == "kafka.trace_context") {
      problems.add(use.line, use.key_path,
                   "table " + table + " has no column " + use.column +
                       " (apply sql/012_outbox_trace_context.sql, or set kafka.trace_context: "
                       "false)");
    } else {
      std::string listed;
      for (const TableColumn& column : live) {
        if (!listed.empty()) listed += ", ";
        listed += column.name;
      }
      std::string text = "table " + table + " has no column " + use.column;
      text += " (its columns: ";
      text += listed;
      text += ")";
      problems.add(use.line, use.key_path, text);
    }
  }
  return problems;
}

// What the start-up line says of the payload: JSON on MySQL is sent as MySQL's text form of it.
std::string payload_note(const std::vector<std::string>& json) {
  const bool payload_json = std::any_of(json.begin(), json.end(), [](const std::string& column) {
    return same_column(column, "payload");
  });
  return payload_json ? ", payload JSON (sent as the server's normalised text; LONGTEXT or "
                        "LONGBLOB keeps the writer's bytes)"
                      : "";
}

// Every status the relay writes or reads (sql/006_outbox_failure_policy_and_ordering.sql).
constexpr std::array<const char*, 7> kKnownStatuses{"PENDING", "PUBLISHING", "PUBLISHED", "RETRY",
                                                    "BLOCKED", "FAILED",     "SKIPPED"};

// "2 events with a status the relay does not know (LEGACY: 2) ..." or "". The distinct statuses
// come from a loose scan of idx_outbox_pending (one index entry per status, however large the
// table); only an unknown status is counted, along the same index.
std::string unknown_statuses(MysqlSession& session, const std::string& table) {
  std::unique_ptr<sql::ResultSet> statuses(
      session.prepare("SELECT status FROM " + table + " GROUP BY status").executeQuery());
  std::string found;
  int64_t total = 0;
  while (statuses->next()) {
    const std::string status = statuses->getString(1);
    if (std::find(kKnownStatuses.begin(), kKnownStatuses.end(), status) != kKnownStatuses.end()) {
      continue;
    }
    sql::PreparedStatement& count =
        session.prepare("SELECT COUNT(*) FROM " + table + " WHERE status = ?");
    count.setString(1, status);
    std::unique_ptr<sql::ResultSet> counted(count.executeQuery());
    counted->next();
    const int64_t rows = counted->getInt64(1);
    total += rows;
    found += std::string(found.empty() ? "" : ", ") + "'" + status + "': " + std::to_string(rows);
  }
  if (total == 0) return "";
  return std::to_string(total) + " events with a status the relay does not know (" + found +
         "): they are never published, and with per-aggregate ordering each holds its "
         "aggregate's later events back; give them a status of the relay's (PENDING to publish, "
         "SKIPPED to give up)";
}

}  // namespace

CheckResult check_database(MysqlSession& session, const SchemaExpectation& expected) {
  lease_sql::Schema schema = expected.schema;
  try {
    TransactionScope transaction(session);
    std::unique_ptr<sql::ResultSet> server(
        session.prepare("SELECT VERSION(), @@log_bin, @@binlog_format").executeQuery());
    server->next();
    const std::string version = server->getString(1);
    const bool log_bin = server->getInt(2) != 0;
    const std::string binlog_format = server->getString(3);
    if (log_bin && binlog_format == "STATEMENT") {
      return {CheckVerdict::kFatal,
              "MySQL " + version +
                  " writes a STATEMENT binlog: FOR UPDATE SKIP LOCKED is unsafe to replicate "
                  "that way; set binlog_format=ROW (or MIXED) on the server"};
    }
    // Before the scans, which would fail on an unknown column with a less helpful message. A
    // table that does not exist yet is the migrations' business (the scans say so, and retry).
    const std::vector<TableColumn> live = table_columns(session, schema.table_name());
    if (!live.empty()) {
      const ConfigDiagnostics problems = missing_columns(live, expected);
      if (!problems.empty()) {
        std::string text = problems.render();
        if (!text.empty() && text.back() == '\n') text.pop_back();
        return {CheckVerdict::kFatal, "the configuration names columns the table lacks:\n" + text};
      }
    }
    const std::vector<std::string> json = json_columns(session, schema.table_name());
    schema.read_json_as_text(json);
    for (const std::string& scan : {lease_sql::select_pending(schema, Ordering::kPerAggregate),
                                    lease_sql::select_expired(schema, Ordering::kPerAggregate),
                                    lease_sql::select_retry_due(schema, Ordering::kPerAggregate)}) {
      sql::PreparedStatement& statement = session.prepare(scan);
      statement.setUInt64(1, 0);
      std::unique_ptr<sql::ResultSet> rows(statement.executeQuery());
    }
    std::unique_ptr<sql::ResultSet> columns(
        session
            .prepare(
                "SELECT published_by, attempts, next_attempt_at, last_error, unpublished FROM " +
                schema.table() + " LIMIT 0")
            .executeQuery());
    // A write that changes nothing: a read-only server (a replica, a demoted primary,
    // read_only on) refuses it with error 1290 before it looks at a row. MariaDB refuses the
    // locking scans above already; this holds for a server that lets locking reads pass.
    sql::PreparedStatement& write =
        session.prepare("UPDATE " + schema.table() + " SET status = status WHERE event_id = ''");
    write.executeUpdate();
    const std::string unknown = unknown_statuses(session, schema.table());
    transaction.commit();
    return {CheckVerdict::kOk,
            "MySQL " + version + ", binlog " + (log_bin ? binlog_format : std::string("off")) +
                ", table " + schema.table_name() + payload_note(json),
            unknown};
  } catch (const sql::SQLException& e) {
    const int code = e.getErrorCode();
    if (is_connection_error(code)) return {CheckVerdict::kRetry, describe_sql_error(e)};
    if (needs_new_session(code)) {
      return {CheckVerdict::kRetry, session_condition(code) +
                                        ": the server refuses the relay's writes (a replica, "
                                        "or read_only is on): " +
                                        describe_sql_error(e)};
    }
    if (code == 1064) {
      return {CheckVerdict::kFatal,
              "the server does not understand FOR UPDATE SKIP LOCKED (needs MySQL 8.0.1+ or "
              "MariaDB 10.6+): " +
                  describe_sql_error(e)};
    }
    if (code == 1146 || code == 1054 || code == 1176) {
      return {CheckVerdict::kRetry, "the outbox schema (table " + schema.table_name() +
                                        ") is missing or older than this relay (apply the "
                                        "migrations in sql/ in order): " +
                                        describe_sql_error(e)};
    }
    return {CheckVerdict::kRetry, describe_sql_error(e)};
  }
}

}  // namespace outbox
