#include "json_columns.hpp"

#include <cppconn/prepared_statement.h>
#include <cppconn/resultset.h>

#include <memory>

namespace outbox {

std::vector<std::string> json_columns(MysqlSession& session, const std::string& table) {
  sql::PreparedStatement& statement = session.prepare(
      "SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND "
      "TABLE_NAME = ? AND DATA_TYPE = 'json'");
  statement.setString(1, table);
  std::unique_ptr<sql::ResultSet> rows(statement.executeQuery());
  std::vector<std::string> columns;
  while (rows->next())
    columns.push_back(rows->getString(1));
  return columns;
}

}  // namespace outbox
