#pragma once

#include <string>
#include <vector>

#include "mysql/mysql_session.hpp"

namespace outbox {

// A column of a table as information_schema.COLUMNS lists it.
struct TableColumn {
  std::string name;
  std::string data_type;  // DATA_TYPE: "json", "longtext", "varchar", ...
};

// The columns of `table` (as configured, unquoted) in the current database, in order; empty
// when the table does not exist (yet). Throws sql::SQLException.
std::vector<TableColumn> table_columns(MysqlSession& session, const std::string& table);

// The columns of `table` that the server types JSON: MySQL's binary JSON, which the relay reads
// as text (lease_sql::Schema::read_json_as_text). Always none on MariaDB, whose JSON is an alias
// of LONGTEXT. Throws sql::SQLException.
std::vector<std::string> json_columns(MysqlSession& session, const std::string& table);

}  // namespace outbox
