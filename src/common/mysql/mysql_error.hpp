#pragma once

#include <cppconn/exception.h>

#include <string>

namespace outbox {

// ER_NO_SUCH_TABLE: a table an optional feature reads (a later migration) is not there yet.
constexpr int kNoSuchTableError = 1146;
// ER_TABLEACCESS_DENIED_ERROR: the account may not run the statement on the table. MySQL gives
// it whether or not the table exists, so for an optional table it means "not there for this
// account" as 1146 does.
constexpr int kTableAccessDeniedError = 1142;
// ER_SPECIFIC_ACCESS_DENIED_ERROR: the statement needs a privilege the account lacks (SUPER,
// SESSION_VARIABLES_ADMIN, BINLOG ADMIN, ...).
constexpr int kSpecificAccessDeniedError = 1227;
// ER_UNKNOWN_SYSTEM_VARIABLE: a SET of a variable the server does not have (MariaDB and MySQL
// name some settings differently).
constexpr int kUnknownSystemVariableError = 1193;
// ER_COLUMNACCESS_DENIED_ERROR: the same for a column, e.g. an upsert's UPDATE reading a column
// the account may not SELECT.
constexpr int kColumnAccessDeniedError = 1143;

// Client/server error codes where the session is unusable and must be reopened, as opposed
// to a statement error on a healthy session.
bool is_connection_error(int error_code);

// A connection error, or a server that refuses writes because it is (no longer) the primary:
// after a failover that demotes it (a moved VIP or DNS name, old connections kept), only a new
// session reaches the new primary.
bool needs_new_session(int error_code);

// A row lock the statement asked for was not granted: innodb_lock_wait_timeout ran out, or
// NOWAIT found the row locked. MariaDB answers both with 1205; MySQL answers NOWAIT with 3572.
bool is_lock_not_granted(int error_code);

// Errors that say nothing about the statement or its data, only about the moment: the session
// (needs_new_session), a lock not granted (is_lock_not_granted), a deadlock. Retrying later can
// succeed.
bool is_transient_error(int error_code);

// How /readyz and the log name an error after which the session is unusable
// (needs_new_session): "mysql: read-only (error 1290)" when the server refuses writes (a
// demoted primary, read_only on, an account without READ ONLY ADMIN), "mysql unreachable
// (error 2013)" for a connection error; "" for any other error (the statement's own).
std::string session_condition(int error_code);

// "MySQL error 1146 (42S02): Table 'app.outbox_event' doesn't exist".
std::string describe_sql_error(const sql::SQLException& error);

}  // namespace outbox
