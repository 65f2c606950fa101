#include "append_event.hpp"

#include <cppconn/prepared_statement.h>

#include <memory>
#include <stdexcept>

#include "event_id.hpp"

namespace outbox::writer {
namespace {

// The seed's column list: later migrations only add columns with defaults, so a writer of an
// event without trace context works on a schema without sql/012 too. With a trace context, the
// columns of sql/012 (tracestate NULL when empty). Two texts per table: the session's prepared
// statement cache stays small.
std::string insert_statement(const OutboxEventRecord& event, const SqlIdentifier& table) {
  if (event.trace.empty()) {
    return "INSERT INTO " + table.quoted() +
           " (event_id, aggregate_type, aggregate_id, event_type, event_version, payload, "
           "status, created_at) VALUES (?, ?, ?, ?, ?, ?, 'PENDING', CURRENT_TIMESTAMP(6))";
  }
  return "INSERT INTO " + table.quoted() +
         " (event_id, aggregate_type, aggregate_id, event_type, event_version, payload, "
         "traceparent, tracestate, status, created_at) "
         "VALUES (?, ?, ?, ?, ?, ?, ?, NULLIF(?, ''), 'PENDING', CURRENT_TIMESTAMP(6))";
}

void check_usable(sql::Connection& connection, const OutboxEventRecord& event) {
  if (connection.getAutoCommit()) {
    throw std::invalid_argument(
        "append_event needs the caller's open transaction, but autocommit is on: event " +
        event.event_id + " would commit on its own");
  }
  if (const auto problem = event_id_problem(event.event_id)) {
    throw std::invalid_argument("append_event: event_id \"" + event.event_id + "\" " + *problem);
  }
  if (const auto problem = trace_context_problem(event.trace)) {
    throw std::invalid_argument("append_event: event " + event.event_id + ": " + *problem);
  }
}

void insert(sql::PreparedStatement& statement, const OutboxEventRecord& event) {
  statement.setString(1, event.event_id);
  statement.setString(2, event.aggregate_type);
  statement.setString(3, event.aggregate_id);
  statement.setString(4, event.event_type);
  statement.setInt64(5, event.event_version);
  statement.setString(6, event.payload);
  if (!event.trace.empty()) {
    statement.setString(7, event.trace.traceparent);
    statement.setString(8, event.trace.tracestate);
  }
  statement.executeUpdate();
}

}  // namespace

void append_event(MysqlSession& session, const OutboxEventRecord& event,
                  const SqlIdentifier& table) {
  check_usable(session.connection(), event);
  insert(session.prepare(insert_statement(event, table)), event);
}

void append_event(sql::Connection& connection, const OutboxEventRecord& event,
                  const SqlIdentifier& table) {
  check_usable(connection, event);
  const std::unique_ptr<sql::PreparedStatement> statement(
      connection.prepareStatement(insert_statement(event, table)));
  insert(*statement, event);
}

}  // namespace outbox::writer
