#include "mysql/mysql_session.hpp"

#include <cppconn/exception.h>
#include <cppconn/statement.h>
#include <mysql_driver.h>

#include <algorithm>

#include "mysql/mysql_error.hpp"
#include "secret_file.hpp"

namespace outbox {

std::string MysqlEndpoint::describe() const {
  const std::string where = socket.empty() ? host + ":" + std::to_string(port) : "unix:" + socket;
  return user + "@" + where + "/" + database;
}

void init_mysql_driver() {
  sql::mysql::get_mysql_driver_instance();
}

MysqlThreadScope::MysqlThreadScope() {
  sql::mysql::get_mysql_driver_instance()->threadInit();
}
MysqlThreadScope::~MysqlThreadScope() {
  sql::mysql::get_mysql_driver_instance()->threadEnd();
}

MysqlSession::MysqlSession(std::unique_ptr<sql::Connection> connection)
    : connection_(std::move(connection)) {}

Outcome<std::unique_ptr<MysqlSession>> MysqlSession::open(const MysqlEndpoint& endpoint,
                                                          const SessionSettings& settings) {
  const auto seconds = [](Micros value) {
    return std::max(1, static_cast<int>(std::chrono::ceil<std::chrono::seconds>(value).count()));
  };
  sql::ConnectOptionsMap options;
  options["hostName"] = sql::SQLString(endpoint.socket.empty() ? "tcp://" + endpoint.host + ":" +
                                                                     std::to_string(endpoint.port)
                                                               : "unix://" + endpoint.socket);
  options["userName"] = sql::SQLString(endpoint.user);
  std::string password = endpoint.password;
  if (!endpoint.password_file.empty()) {
    Outcome<std::string> current = read_secret_file(endpoint.password_file);
    if (!current) {
      return Error{"cannot connect to MySQL " + endpoint.describe() +
                   ": mysql.password_file: " + current.error().message};
    }
    password = std::move(current).value();
  }
  options["password"] = sql::SQLString(password);
  options["schema"] = sql::SQLString(endpoint.database);
  options["OPT_CONNECT_TIMEOUT"] = seconds(endpoint.connect_timeout);
  options["OPT_READ_TIMEOUT"] = seconds(endpoint.read_timeout);
  options["OPT_WRITE_TIMEOUT"] = seconds(endpoint.read_timeout);
  options["OPT_RECONNECT"] = false;
  options["OPT_CHARSET_NAME"] = sql::SQLString("utf8mb4");
  try {
    std::unique_ptr<sql::Connection> connection(
        sql::mysql::get_mysql_driver_instance()->connect(options));
    std::unique_ptr<MysqlSession> session(new MysqlSession(std::move(connection)));
    session->execute("SET SESSION time_zone = '+00:00'");
    if (settings.read_committed) {
      session->execute("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED");
    }
    session->execute("SET SESSION innodb_lock_wait_timeout = " +
                     std::to_string(settings.lock_wait_timeout_seconds));
    if (settings.wait_timeout_seconds > 0) {
      session->execute("SET SESSION wait_timeout = " +
                       std::to_string(settings.wait_timeout_seconds));
    }
    session->connection().setAutoCommit(settings.autocommit);
    return session;
  } catch (const sql::SQLException& e) {
    return Error{"cannot connect to MySQL " + endpoint.describe() + ": " + describe_sql_error(e)};
  }
}

sql::PreparedStatement& MysqlSession::prepare(const std::string& text) {
  auto found = statements_.find(text);
  if (found != statements_.end()) return *found->second;
  std::unique_ptr<sql::PreparedStatement> statement(connection_->prepareStatement(text));
  return *statements_.emplace(text, std::move(statement)).first->second;
}

void MysqlSession::execute(const std::string& text) {
  std::unique_ptr<sql::Statement> statement(connection_->createStatement());
  statement->execute(text);
}

void MysqlSession::commit() {
  execute("COMMIT");
}

Status MysqlSession::rollback() {
  try {
    execute("ROLLBACK");
    return ok_status();
  } catch (const sql::SQLException& e) {
    return Error{"rollback failed: " + describe_sql_error(e)};
  }
}

void MysqlSession::rollback_quietly() noexcept {
  try {
    execute("ROLLBACK");
  } catch (...) {  // NOLINT(bugprone-empty-catch): the caller is already reporting a failure
  }
}

}  // namespace outbox
