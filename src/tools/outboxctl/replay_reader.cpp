#include "replay_reader.hpp"

#include <algorithm>
#include <map>
#include <memory>

namespace outbox::ctl {
namespace {

// The result columns of both reads, 1-based.
struct ReplayColumn {
  static constexpr unsigned kEventId = 1;
  static constexpr unsigned kAggregateType = 2;
  static constexpr unsigned kAggregateId = 3;
  static constexpr unsigned kEventType = 4;
  static constexpr unsigned kEventVersion = 5;
  static constexpr unsigned kPayload = 6;
  static constexpr unsigned kCreatedAt = 7;
  static constexpr unsigned kFirstMessageColumn = 8;
};

std::string select_list(const claim_sql::Schema& schema, bool with_payloads) {
  std::string list =
      "e.event_id, e.aggregate_type, e.aggregate_id, e.event_type, e.event_version, ";
  // The payload as the relay reads it (unqualified: the statement reads one table).
  list += with_payloads ? schema.payload_expression() : std::string("''");
  list += ", DATE_FORMAT(e.created_at, '%Y-%m-%d %H:%i:%s.%f')";
  for (size_t i = 0; i < schema.message_columns().size(); ++i)
    list += ", " + schema.message_column_expression(i);
  return list;
}

// A chunk: PUBLISHED rows of the window after the last one read, along idx_outbox_pending.
// Params: until, after time, after time, after id, [aggregate type], limit.
std::string chunk_sql(const claim_sql::Schema& schema, bool with_payloads, bool by_type) {
  return "SELECT " + select_list(schema, with_payloads) + " FROM " + schema.table() +
         " e FORCE INDEX (idx_outbox_pending) WHERE e.status = 'PUBLISHED' AND e.created_at < ? "
         "AND (e.created_at > ? OR (e.created_at = ? AND e.event_id > ?))" +
         (by_type ? " AND e.aggregate_type = ?" : "") +
         " ORDER BY e.created_at, e.event_id LIMIT ?";
}

// The rest of the rows created at the chunk's last created_at. Params: time, after id,
// [aggregate type], limit.
std::string ties_sql(const claim_sql::Schema& schema, bool with_payloads, bool by_type) {
  return "SELECT " + select_list(schema, with_payloads) + " FROM " + schema.table() +
         " e FORCE INDEX (idx_outbox_pending) WHERE e.status = 'PUBLISHED' AND e.created_at = ? "
         "AND e.event_id > ?" +
         (by_type ? " AND e.aggregate_type = ?" : "") + " ORDER BY e.event_id LIMIT ?";
}

}  // namespace

ReplayReader::ReplayReader(MysqlSession& session, claim_sql::Schema schema, ReplayWindow window,
                           std::optional<std::string> aggregate_type, int batch_size,
                           bool with_payloads)
    : session_(session),
      schema_(std::move(schema)),
      window_(std::move(window)),
      aggregate_type_(std::move(aggregate_type)),
      batch_size_(batch_size),
      select_chunk_(chunk_sql(schema_, with_payloads, aggregate_type_.has_value())),
      select_ties_(ties_sql(schema_, with_payloads, aggregate_type_.has_value())),
      after_time_(window_.since) {}

size_t ReplayReader::read(sql::PreparedStatement& statement, std::vector<ReplayRow>& out) {
  std::unique_ptr<sql::ResultSet> rows(statement.executeQuery());
  const size_t message_columns = schema_.message_columns().size();
  size_t read = 0;
  while (rows->next()) {
    ++read;
    ReplayRow row;
    OutboxEvent& event = row.event;
    event.event_id = rows->getString(ReplayColumn::kEventId);
    row.created_at = rows->getString(ReplayColumn::kCreatedAt);
    // Every row read moves the key on, also one the filter below drops.
    after_time_ = row.created_at;
    after_id_ = event.event_id;
    event.aggregate_type = rows->getString(ReplayColumn::kAggregateType);
    // MySQL compares aggregate_type by the column's collation (case-insensitive by default):
    // the filter is byte for byte, as pauses are.
    if (aggregate_type_ && event.aggregate_type != *aggregate_type_) continue;
    event.aggregate_id = rows->getString(ReplayColumn::kAggregateId);
    event.event_type = rows->getString(ReplayColumn::kEventType);
    event.event_version = rows->getInt64(ReplayColumn::kEventVersion);
    event.payload = rows->getString(ReplayColumn::kPayload).asStdString();
    event.payload_bytes = event.payload.size();
    for (unsigned i = 0; i < message_columns; ++i) {
      const unsigned column = ReplayColumn::kFirstMessageColumn + i;
      event.columns.push_back(
          rows->isNull(column) ? std::nullopt
                               : std::optional<std::string>(std::string(rows->getString(column))));
    }
    out.push_back(std::move(row));
  }
  return read;
}

size_t ReplayReader::read_chunk(std::vector<ReplayRow>& out) {
  sql::PreparedStatement& select = session_.prepare(select_chunk_);
  unsigned at = 1;
  select.setString(at++, window_.until);
  select.setString(at++, after_time_);
  select.setString(at++, after_time_);
  select.setString(at++, after_id_);
  if (aggregate_type_) select.setString(at++, *aggregate_type_);
  select.setInt(at, batch_size_);
  return read(select, out);
}

size_t ReplayReader::read_ties(std::vector<ReplayRow>& out) {
  sql::PreparedStatement& select = session_.prepare(select_ties_);
  unsigned at = 1;
  // A copy: read() moves the key on while the statement is bound.
  const std::string time = after_time_;
  select.setString(at++, time);
  select.setString(at++, after_id_);
  if (aggregate_type_) select.setString(at++, *aggregate_type_);
  select.setInt(at, batch_size_);
  return read(select, out);
}

std::vector<ReplayRow> ReplayReader::next() {
  std::vector<ReplayRow> chunk;
  const auto batch = static_cast<size_t>(batch_size_);
  // Rows a case-insensitive filter let through and read() dropped can leave a chunk empty
  // before the window's end: read on until a chunk holds rows or the window is read.
  while (chunk.empty() && !done_) {
    TransactionScope transaction(session_);
    if (read_chunk(chunk) < batch) {
      done_ = true;  // every row after the key was read
    } else {
      while (read_ties(chunk) == batch) {
      }
    }
    transaction.commit();
  }
  return chunk;
}

void order_versions_within_aggregates(std::vector<ReplayRow>& rows) {
  std::map<std::pair<std::string, std::string>, std::vector<size_t>> places;
  for (size_t i = 0; i < rows.size(); ++i)
    places[{rows[i].event.aggregate_type, rows[i].event.aggregate_id}].push_back(i);
  std::vector<ReplayRow> ordered(rows.size());
  for (auto& entry : places) {
    std::vector<size_t>& at = entry.second;
    std::vector<size_t> by_version = at;
    std::stable_sort(by_version.begin(), by_version.end(), [&rows](size_t a, size_t b) {
      return rows[a].event.event_version < rows[b].event.event_version;
    });
    for (size_t k = 0; k < at.size(); ++k)
      ordered[at[k]] = std::move(rows[by_version[k]]);
  }
  rows = std::move(ordered);
}

}  // namespace outbox::ctl
