#pragma once

#include <string>
#include <vector>

#include "mysql/mysql_session.hpp"

namespace outbox {

// The columns of `table` (as configured, unquoted) that the server types JSON: MySQL's binary
// JSON, which the relay reads as text (claim_sql::Schema::read_json_as_text). Always none on
// MariaDB, whose JSON is an alias of LONGTEXT. Throws sql::SQLException.
std::vector<std::string> json_columns(MysqlSession& session, const std::string& table);

}  // namespace outbox
