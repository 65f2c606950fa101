#include "mysql/mysql_error.hpp"

namespace outbox {

bool is_connection_error(int error_code) {
  switch (error_code) {
    case 1053:  // ER_SERVER_SHUTDOWN
    case 1152:  // ER_ABORTING_CONNECTION
    case 1317:  // ER_QUERY_INTERRUPTED (KILL QUERY/server shutdown)
    case 1927:  // MariaDB ER_CONNECTION_KILLED
    case 4031:  // MySQL ER_CLIENT_INTERACTION_TIMEOUT
    case 2002:  // CR_CONNECTION_ERROR
    case 2003:  // CR_CONN_HOST_ERROR
    case 2005:  // CR_UNKNOWN_HOST
    case 2006:  // CR_SERVER_GONE_ERROR
    case 2013:  // CR_SERVER_LOST
    case 2026:  // CR_SSL_CONNECTION_ERROR
    case 2055:  // CR_SERVER_LOST_EXTENDED
      return true;
    default:
      // Connector/C++ reports some transport failures with code 0 and no SQLSTATE.
      return error_code == 0;
  }
}

bool needs_new_session(int error_code) {
  switch (error_code) {
    case 1290:  // ER_OPTION_PREVENTS_STATEMENT (--read-only)
    case 1792:  // ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION
    case 1836:  // ER_READ_ONLY_MODE
      return true;
    default:
      return is_connection_error(error_code);
  }
}

bool is_lock_not_granted(int error_code) {
  return error_code == 1205 ||  // ER_LOCK_WAIT_TIMEOUT (MariaDB's NOWAIT answers it too)
         error_code == 3572;    // MySQL's ER_LOCK_NOWAIT
}

bool is_transient_error(int error_code) {
  return is_lock_not_granted(error_code) ||  //
         error_code == 1213 ||               // ER_LOCK_DEADLOCK
         needs_new_session(error_code);
}

std::string session_condition(int error_code) {
  const std::string code = "(error " + std::to_string(error_code) + ")";
  if (is_connection_error(error_code)) return "mysql unreachable " + code;
  if (needs_new_session(error_code)) return "mysql: read-only " + code;
  return "";
}

std::string describe_sql_error(const sql::SQLException& error) {
  return "MySQL error " + std::to_string(error.getErrorCode()) + " (" + error.getSQLState() +
         "): " + error.what();
}

}  // namespace outbox
