#pragma once

#include <cppconn/connection.h>

#include "mysql/mysql_session.hpp"
#include "mysql/sql_identifier.hpp"
#include "outbox_event_record.hpp"

namespace outbox::writer {

// For services that manage their own transaction: inserts `event` into `table` (status
// PENDING, created_at = CURRENT_TIMESTAMP(6)) on the connection that writes the business rows,
// inside the transaction the caller has open. It neither commits nor rolls back, so the event
// becomes visible exactly when the caller's transaction commits, and never without it.
//
// Errors: a statement error throws sql::SQLException, like the caller's own statements in the
// same transaction, so the caller's one error path decides the transaction's fate (rollback,
// and COMMIT failures are "outcome unknown": see OrderWriter). Misuse throws
// std::invalid_argument: autocommit on (the event would commit alone, before or without the
// business row), an event_id the column would truncate, or a malformed trace context
// (event.trace: checked before any statement runs). An event with a trace context needs the
// columns of sql/012; one without inserts the seed's column list only.
//
// `table`: the outbox table (the relay's mysql.table), outbox_event by default.
void append_event(MysqlSession& session, const OutboxEventRecord& event,
                  const SqlIdentifier& table = default_outbox_table());
void append_event(sql::Connection& connection, const OutboxEventRecord& event,
                  const SqlIdentifier& table = default_outbox_table());

}  // namespace outbox::writer
