#include "lease_store/table_columns.hpp"

#include <cppconn/prepared_statement.h>
#include <cppconn/resultset.h>

#include <memory>

namespace outbox {

std::vector<TableColumn> table_columns(MysqlSession& session, const std::string& table) {
  sql::PreparedStatement& statement = session.prepare(
      "SELECT COLUMN_NAME, DATA_TYPE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = "
      "DATABASE() AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION");
  statement.setString(1, table);
  std::unique_ptr<sql::ResultSet> rows(statement.executeQuery());
  std::vector<TableColumn> columns;
  while (rows->next())
    columns.push_back({rows->getString(1), rows->getString(2)});
  return columns;
}

std::vector<std::string> json_columns(MysqlSession& session, const std::string& table) {
  std::vector<std::string> json;
  for (const TableColumn& column : table_columns(session, table)) {
    if (column.data_type == "json") json.push_back(column.name);
  }
  return json;
}

}  // namespace outbox
