#pragma once

#include <cppconn/connection.h>
#include <cppconn/prepared_statement.h>
#include <cppconn/resultset.h>

#include <memory>
#include <string>
#include <unordered_map>

#include "mysql/mysql_endpoint.hpp"
#include "outcome.hpp"

namespace outbox {

// Connector/C++ needs each thread that touches a connection to register with the client
// library (mysql_thread_init) and to unregister before it ends, or it leaks per-thread state.
class MysqlThreadScope {
 public:
  MysqlThreadScope();
  ~MysqlThreadScope();
  MysqlThreadScope(const MysqlThreadScope&) = delete;
  MysqlThreadScope& operator=(const MysqlThreadScope&) = delete;
};

// Must run once on the main thread before any other thread opens a session: the driver's
// first initialisation is not thread-safe.
void init_mysql_driver();

struct SessionSettings {
  // Queue work needs explicit transactions: with autocommit on, FOR UPDATE locks vanish at
  // the end of the SELECT and two relays could claim the same rows.
  bool autocommit = false;
  // READ COMMITTED: the claim scan takes no gap locks that would block writers' INSERTs.
  bool read_committed = true;
  int lock_wait_timeout_seconds = 10;
  // wait_timeout: how long the server keeps the session while the client sends nothing, in
  // or out of a transaction. 0 keeps the server's (8 hours by default).
  int wait_timeout_seconds = 0;
  // binlog_row_image = MINIMAL for this session, where the account may set it (MySQL:
  // SESSION_VARIABLES_ADMIN; MariaDB: BINLOG ADMIN): an UPDATE then logs the row's primary key
  // and the columns it changed, not the whole row (payload included) twice; and without the
  // statement's text beside the rows (MariaDB's binlog_annotate_row_events, MySQL's
  // binlog_rows_query_log_events off). Where the account may not, the session keeps the
  // server's settings and says so (MysqlSession::row_image_refusal()).
  bool minimal_row_image = false;
};

// One MySQL connection configured for this project's sessions: UTC time zone (so every
// TIMESTAMP is compared in one zone whatever the server default), no client auto-reconnect
// (it would silently drop the session settings and an open transaction), cached prepared
// statements.
class MysqlSession {
 public:
  static Outcome<std::unique_ptr<MysqlSession>> open(const MysqlEndpoint& endpoint,
                                                     const SessionSettings& settings);

  // The prepared statement for this exact text, prepared once per session.
  sql::PreparedStatement& prepare(const std::string& text);
  // Runs a statement without parameters (session settings, DDL in tools).
  void execute(const std::string& text);
  // COMMIT; throws sql::SQLException when the server did not confirm it.
  //
  // Sent as an SQL statement on purpose: Connector/C++ 1.1.12's Connection::commit() and
  // rollback() (over Debian's libmariadb) return normally on a connection the server has
  // already killed, so a commit that never happened would look like one that did (a silently
  // lost order or consumer effect). The statement reports the lost connection (2013).
  void commit();
  // Rolls back and reports whether the server confirmed it. When it fails the session is
  // gone and the transaction's fate is the server's (it rolls back once it notices): a caller
  // that needs "certainly not committed" may only claim it on success.
  Status rollback();
  // Rolls back, ignoring errors: used on paths that already report a failure.
  void rollback_quietly() noexcept;

  sql::Connection& connection() { return *connection_; }
  // What protects the session, for start-up lines: "TLSv1.3 TLS_AES_256_GCM_SHA384 (mode
  // verify_identity)" or "no TLS (mode disabled)".
  const std::string& tls() const { return tls_; }
  // With SessionSettings::minimal_row_image: "" when the session logs MINIMAL row images, else
  // why it keeps the server's (the server's refusal).
  const std::string& row_image_refusal() const { return row_image_refusal_; }

 private:
  explicit MysqlSession(std::unique_ptr<sql::Connection> connection);

  std::unique_ptr<sql::Connection> connection_;
  std::string tls_;
  std::string row_image_refusal_;
  std::unordered_map<std::string, std::unique_ptr<sql::PreparedStatement>> statements_;
};

// Rolls the session back when a scope is left without commit() (an exception or an early
// return), so no transaction and no row lock outlives the code that opened it.
class TransactionScope {
 public:
  explicit TransactionScope(MysqlSession& session) : session_(session) {}
  ~TransactionScope() {
    if (!finished_) session_.rollback_quietly();
  }
  TransactionScope(const TransactionScope&) = delete;
  TransactionScope& operator=(const TransactionScope&) = delete;

  void commit() {
    finished_ = true;  // a failed commit must not be "rolled back" into a known outcome
    session_.commit();
  }

 private:
  MysqlSession& session_;
  bool finished_ = false;
};

}  // namespace outbox
