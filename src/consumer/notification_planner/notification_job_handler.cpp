#include "notification_job_handler.hpp"

#include <charconv>
#include <memory>
#include <optional>

namespace outbox::planner {
namespace {

// The payload is read by the database's JSON functions (the server already validated it as
// JSON when the writer stored it), in a form that MySQL 8 and MariaDB both evaluate the same
// way: JSON_EXTRACT only runs when JSON_VALID holds (MySQL raises an error on invalid JSON),
// JSON_TYPE tells an integer from "42" or 4.2. A value is read as text (CAST AS CHAR): MySQL's
// JSON_EXTRACT answers with its JSON type, which Connector/C++ 1.1 cannot bind ("invalid rbind
// data type"); MariaDB's answers text already.
constexpr const char* kReadPayload =
    "SELECT JSON_VALID(p), "
    "CASE WHEN JSON_VALID(p) THEN JSON_TYPE(JSON_EXTRACT(p, '$.order_id')) END, "
    "CASE WHEN JSON_VALID(p) THEN CAST(JSON_EXTRACT(p, '$.order_id') AS CHAR) END, "
    "CASE WHEN JSON_VALID(p) THEN JSON_TYPE(JSON_EXTRACT(p, '$.version')) END, "
    "CASE WHEN JSON_VALID(p) THEN CAST(JSON_EXTRACT(p, '$.version') AS CHAR) END "
    "FROM (SELECT CAST(? AS CHAR) AS p) AS payload";

// trace_id (sql/013): the trace of the request that wrote the order, NULL without one.
constexpr const char* kInsertJob =
    "INSERT INTO notification_job (event_id, order_id, source_version, trace_id, status, "
    "created_at) VALUES (?, ?, ?, NULLIF(?, ''), 'PENDING', CURRENT_TIMESTAMP(6))";

std::optional<int64_t> integer_field(sql::ResultSet& row, int type_column, int value_column) {
  if (row.isNull(type_column) || row.getString(type_column) != "INTEGER") return std::nullopt;
  const std::string text = row.getString(value_column);
  int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace

consumer::EffectResult plan_notification(MysqlSession& session,
                                         const consumer::ReceivedEvent& event) {
  // event_type from the relay's own profile, ce_type (CloudEvents' type) from its cloudevents one.
  const std::string* event_type = event.header("event_type");
  if (event_type == nullptr) event_type = event.header("ce_type");
  if (event_type == nullptr) {
    return consumer::EffectResult::rejected("no event_type header (nor ce_type)");
  }
  if (*event_type != "ORDER_ACCEPTED") return consumer::EffectResult::applied();

  sql::PreparedStatement& read = session.prepare(kReadPayload);
  read.setString(1, event.payload);
  const std::unique_ptr<sql::ResultSet> row(read.executeQuery());
  row->next();
  if (row->getInt(1) != 1) return consumer::EffectResult::rejected("payload is not valid JSON");
  const std::optional<int64_t> order_id = integer_field(*row, 2, 3);
  if (!order_id) return consumer::EffectResult::rejected("payload has no integer order_id");
  const std::optional<int64_t> version = integer_field(*row, 4, 5);
  if (!version) return consumer::EffectResult::rejected("payload has no integer version");

  sql::PreparedStatement& insert = session.prepare(kInsertJob);
  insert.setString(1, event.event_id);
  insert.setInt64(2, *order_id);
  insert.setInt64(3, *version);
  insert.setString(4, event.trace_id());
  insert.executeUpdate();
  return consumer::EffectResult::applied();
}

}  // namespace outbox::planner
