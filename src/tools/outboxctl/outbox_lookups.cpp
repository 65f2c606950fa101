#include "outbox_lookups.hpp"

#include <cppconn/exception.h>

#include "mysql/mysql_error.hpp"
#include "row_values.hpp"

namespace outbox::ctl {
namespace {

constexpr Column::Kind kInteger = Column::Kind::kInteger;

// `traced`: the table has the trace context columns (kafka.trace_context).
const Columns& event_columns(bool traced) {
  static const Columns columns{
      {"event_id", "e.event_id"},
      {"aggregate_type", "e.aggregate_type"},
      {"aggregate_id", "e.aggregate_id"},
      {"event_type", "e.event_type"},
      {"event_version", "e.event_version", kInteger},
      {"status", "e.status"},
      {"attempts", "e.attempts", kInteger},
      {"last_error", "e.last_error"},
      {"next_attempt_at", iso_time("e.next_attempt_at")},
      {"lease_owner", "e.lease_owner"},
      {"lease_until", iso_time("e.lease_until")},
      {"lease_state",
       "CASE WHEN e.lease_until IS NULL THEN NULL WHEN e.lease_until > CURRENT_TIMESTAMP(6) THEN "
       "'live' ELSE 'expired' END"},
      {"created_at", iso_time("e.created_at")},
      {"published_at", iso_time("e.published_at")},
      {"published_by", "e.published_by"},
      {"traceparent", "e.traceparent"},
      {"tracestate", "e.tracestate"},
      {"payload_bytes", "LENGTH(e.payload)", kInteger},
  };
  static const Columns untraced = [] {
    Columns without;
    for (const Column& column : columns) {
      const std::string_view name = column.field;
      if (name != "traceparent" && name != "tracestate") without.push_back(column);
    }
    return without;
  }();
  return traced ? columns : untraced;
}

const Columns& order_columns() {
  static const Columns columns{
      {"id", "o.id", kInteger},
      {"tenant_id", "o.tenant_id", kInteger},
      {"request_id", "o.request_id"},
      {"acceptance_event_id", "o.acceptance_event_id"},
      {"version", "o.version", kInteger},
      {"status", "o.status"},
      {"created_at", iso_time("o.created_at")},
  };
  return columns;
}

const Columns& consumer_columns() {
  static const Columns columns{
      {"consumer", "c.consumer_name"},
      {"consumed_at", iso_time("c.consumed_at")},
      {"id", "c.id", kInteger},
  };
  return columns;
}

const Columns& notification_job_columns() {
  static const Columns columns{
      {"order_id", "j.order_id", kInteger},
      {"source_version", "j.source_version", kInteger},
      {"status", "j.status"},
      {"created_at", iso_time("j.created_at")},
      {"trace_id", "j.trace_id"},
  };
  return columns;
}

// The first row of a query as an object, or null when it has none.
Value first_row(sql::PreparedStatement& statement, const Columns& columns) {
  std::unique_ptr<sql::ResultSet> rows(statement.executeQuery());
  return rows->next() ? object_from_row(columns, *rows) : Value();
}

// Every row of a query as a list of objects.
Value all_rows(sql::PreparedStatement& statement, const Columns& columns) {
  std::unique_ptr<sql::ResultSet> rows(statement.executeQuery());
  Value list = Value::list();
  while (rows->next())
    list.add(object_from_row(columns, *rows));
  return list;
}

}  // namespace

Value find_event(MysqlSession& session, const OutboxTable& table, const std::string& event_id) {
  const Columns& columns = event_columns(table.traced);
  sql::PreparedStatement& statement = session.prepare("SELECT " + select_list(columns) + " FROM " +
                                                      table.quoted + " e WHERE e.event_id = ?");
  statement.setString(1, event_id);
  return first_row(statement, columns);
}

Value find_order_events(MysqlSession& session, const OutboxTable& table,
                        const std::string& acceptance_event_id, const std::string& aggregate_type,
                        const std::string& aggregate_id) {
  // By primary key, or along idx_outbox_aggregate: an order's own events only.
  const Columns& columns = event_columns(table.traced);
  sql::PreparedStatement& statement =
      session.prepare("SELECT " + select_list(columns) + " FROM " + table.quoted +
                      " e WHERE e.event_id = ? OR (e.aggregate_type = ? AND e.aggregate_id = "
                      "?) ORDER BY e.event_version, e.created_at, e.event_id LIMIT ?");
  statement.setString(1, acceptance_event_id);
  statement.setString(2, aggregate_type);
  statement.setString(3, aggregate_id);
  statement.setInt(4, kMaxOrderEvents);
  return all_rows(statement, columns);
}

Value find_consumers(MysqlSession& session, const std::string& event_id) {
  // consumed_event is keyed by (consumer_name, event_id): list the consumers (a loose scan of
  // the unique key's first column, one step per consumer), then probe each for this event.
  sql::PreparedStatement& statement =
      session.prepare("SELECT " + select_list(consumer_columns()) +
                      " FROM (SELECT DISTINCT consumer_name FROM consumed_event) k JOIN "
                      "consumed_event c ON c.consumer_name = k.consumer_name AND c.event_id = ? "
                      "ORDER BY c.consumer_name");
  statement.setString(1, event_id);
  return all_rows(statement, consumer_columns());
}

Value find_consumption(MysqlSession& session, const std::string& consumer,
                       const std::string& event_id) {
  sql::PreparedStatement& statement =
      session.prepare("SELECT " + select_list(consumer_columns()) +
                      " FROM consumed_event c WHERE c.consumer_name = ? AND c.event_id = ?");
  statement.setString(1, consumer);
  statement.setString(2, event_id);
  return first_row(statement, consumer_columns());
}

Value find_notification_job(MysqlSession& session, const std::string& event_id) {
  sql::PreparedStatement& statement =
      session.prepare("SELECT " + select_list(notification_job_columns()) +
                      " FROM notification_job j WHERE j.event_id = ?");
  statement.setString(1, event_id);
  return first_row(statement, notification_job_columns());
}

Value find_order_by_acceptance(MysqlSession& session, const std::string& event_id) {
  try {
    sql::PreparedStatement& statement =
        session.prepare("SELECT " + select_list(order_columns()) +
                        " FROM orders o WHERE o.acceptance_event_id = ?");
    statement.setString(1, event_id);
    return first_row(statement, order_columns());
  } catch (const sql::SQLException& e) {
    if (e.getErrorCode() == kNoSuchTableError) return {};
    throw;
  }
}

Value find_order_by_request(MysqlSession& session, int64_t tenant_id,
                            const std::string& request_id) {
  sql::PreparedStatement& statement =
      session.prepare("SELECT " + select_list(order_columns()) +
                      " FROM orders o WHERE o.tenant_id = ? AND o.request_id = ?");
  statement.setInt64(1, tenant_id);
  statement.setString(2, request_id);
  return first_row(statement, order_columns());
}

}  // namespace outbox::ctl
