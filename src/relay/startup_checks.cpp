#include "startup_checks.hpp"

#include <cppconn/exception.h>

#include "claim_sql.hpp"
#include "mysql/mysql_error.hpp"

namespace outbox {

CheckResult check_database(MysqlSession& session) {
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
    for (const std::string& scan : {claim_sql::select_pending(Ordering::kPerAggregate),
                                    claim_sql::select_expired(Ordering::kPerAggregate),
                                    claim_sql::select_retry_due(Ordering::kPerAggregate)}) {
      sql::PreparedStatement& statement = session.prepare(scan);
      statement.setUInt64(1, 0);
      std::unique_ptr<sql::ResultSet> rows(statement.executeQuery());
    }
    std::unique_ptr<sql::ResultSet> columns(
        session
            .prepare("SELECT published_by, attempts, next_attempt_at, last_error, unpublished "
                     "FROM outbox_event LIMIT 0")
            .executeQuery());
    // A write that changes nothing: a read-only server (a replica, a demoted primary,
    // read_only on) refuses it with error 1290 before it looks at a row. MariaDB refuses the
    // locking scans above already; this holds for a server that lets locking reads pass.
    sql::PreparedStatement& write =
        session.prepare("UPDATE outbox_event SET status = status WHERE event_id = ''");
    write.executeUpdate();
    transaction.commit();
    return {CheckVerdict::kOk,
            "MySQL " + version + ", binlog " + (log_bin ? binlog_format : std::string("off"))};
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
      return {CheckVerdict::kRetry,
              "the outbox schema is missing or older than this relay (apply the migrations in "
              "sql/ in order): " +
                  describe_sql_error(e)};
    }
    return {CheckVerdict::kRetry, describe_sql_error(e)};
  }
}

}  // namespace outbox
