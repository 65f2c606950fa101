#include "server_status.hpp"

#include <cppconn/statement.h>

#include <memory>

namespace outbox::bench {

std::map<std::string, double> statement_counters(MysqlSession& session) {
  std::unique_ptr<sql::Statement> statement(session.connection().createStatement());
  std::unique_ptr<sql::ResultSet> rows(statement->executeQuery(
      "SHOW GLOBAL STATUS WHERE Variable_name IN ('Questions', 'Com_stmt_execute', 'Com_commit', "
      "'Com_select', 'Com_rollback')"));
  std::map<std::string, double> out;
  while (rows->next())
    out[rows->getString(1)] = std::stod(rows->getString(2));
  return out;
}

double binary_log_bytes(MysqlSession& session) {
  std::unique_ptr<sql::Statement> statement(session.connection().createStatement());
  std::unique_ptr<sql::ResultSet> rows(statement->executeQuery("SHOW BINARY LOGS"));
  double bytes = 0;
  while (rows->next())
    bytes += static_cast<double>(rows->getUInt64(2));
  return bytes;
}

std::pair<int, int> durability(MysqlSession& session) {
  std::unique_ptr<sql::Statement> statement(session.connection().createStatement());
  std::unique_ptr<sql::ResultSet> rows(statement->executeQuery(
      "SELECT @@GLOBAL.innodb_flush_log_at_trx_commit, @@GLOBAL.sync_binlog"));
  rows->next();
  return {rows->getInt(1), rows->getInt(2)};
}

std::string set_durability(MysqlSession& session, int flush_log_at_trx_commit, int sync_binlog) {
  std::unique_ptr<sql::Statement> statement(session.connection().createStatement());
  statement->execute("SET GLOBAL innodb_flush_log_at_trx_commit = " +
                     std::to_string(flush_log_at_trx_commit));
  statement->execute("SET GLOBAL sync_binlog = " + std::to_string(sync_binlog));
  std::unique_ptr<sql::ResultSet> rows(statement->executeQuery(
      "SELECT @@GLOBAL.innodb_flush_log_at_trx_commit, @@GLOBAL.sync_binlog, "
      "@@GLOBAL.binlog_format, @@GLOBAL.innodb_buffer_pool_size DIV 1048576"));
  rows->next();
  return "innodb_flush_log_at_trx_commit=" + rows->getString(1) +
         ", sync_binlog=" + rows->getString(2) + ", binlog_format=" + rows->getString(3) +
         ", buffer pool " + rows->getString(4) + " MiB";
}

void for_each_durability_profile(
    MysqlSession& session,
    const std::function<void(const std::string& name, const std::string& settings)>& body) {
  const auto [flush_log, sync_binlog] = durability(session);
  body("durable", set_durability(session, 1, 1));
  body("tuned", set_durability(session, 2, 0));
  set_durability(session, flush_log, sync_binlog);
}

}  // namespace outbox::bench
