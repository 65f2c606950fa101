#pragma once

#include <cppconn/exception.h>

#include <string>

namespace outbox {

// Client/server error codes where the session is unusable and must be reopened, as opposed
// to a statement error on a healthy session.
bool is_connection_error(int error_code);

// "MySQL error 1146 (42S02): Table 'app.outbox_event' doesn't exist".
std::string describe_sql_error(const sql::SQLException& error);

}  // namespace outbox
