#include "replay_reader.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <unordered_map>

#include "mysql/id_list_binding.hpp"

namespace outbox::ctl {
namespace {

// The columns of the key reads, 1-based.
struct KeyColumn {
  static constexpr unsigned kEventId = 1;
  static constexpr unsigned kCreatedAt = 2;
  static constexpr unsigned kAggregateType = 3;
  static constexpr unsigned kAggregateId = 4;
  static constexpr unsigned kEventType = 5;
  static constexpr unsigned kEventVersion = 6;
};

constexpr const char* kKeyColumns =
    "SELECT event_id, DATE_FORMAT(created_at, '%Y-%m-%d %H:%i:%s.%f'), aggregate_type, "
    "aggregate_id, event_type, event_version FROM ";

// A chunk: PUBLISHED rows of the window after the last one read, along idx_outbox_pending.
// Params: until, after time, after time, after id, limit.
std::string chunk_sql(const lease_sql::Schema& schema) {
  return kKeyColumns + schema.table() +
         " FORCE INDEX (idx_outbox_pending) WHERE status = 'PUBLISHED' AND created_at < ? "
         "AND (created_at > ? OR (created_at = ? AND event_id > ?)) "
         "ORDER BY created_at, event_id LIMIT ?";
}

// The rest of the rows created at the chunk's last created_at. Params: time, after id, limit.
std::string ties_sql(const lease_sql::Schema& schema) {
  return kKeyColumns + schema.table() +
         " FORCE INDEX (idx_outbox_pending) WHERE status = 'PUBLISHED' AND created_at = ? "
         "AND event_id > ? ORDER BY event_id LIMIT ?";
}

// The payload and message columns of a list of rows (event_id, payload, columns...), read as
// the relay's claim reads them. Params: ids[capacity].
std::string bodies_sql(const lease_sql::Schema& schema, size_t capacity) {
  std::string sql = "SELECT e.event_id, " + schema.payload_expression();
  for (size_t i = 0; i < schema.message_columns().size(); ++i)
    sql += ", " + schema.message_column_expression(i);
  return sql + " FROM " + schema.table() + " e WHERE e.event_id IN (" +
         lease_sql::placeholders(capacity) + ") AND e.status = 'PUBLISHED'";
}

}  // namespace

ReplayReader::ReplayReader(MysqlSession& session, lease_sql::Schema schema, ReplayWindow window,
                           int batch_size)
    : session_(session),
      schema_(std::move(schema)),
      window_(std::move(window)),
      batch_size_(batch_size),
      after_time_(window_.since) {}

size_t ReplayReader::read_keys(sql::PreparedStatement& statement, std::vector<ReplayRow>& out) {
  std::unique_ptr<sql::ResultSet> rows(statement.executeQuery());
  size_t read = 0;
  while (rows->next()) {
    ++read;
    ReplayRow row;
    OutboxEvent& event = row.event;
    event.event_id = rows->getString(KeyColumn::kEventId);
    row.created_at = rows->getString(KeyColumn::kCreatedAt);
    event.aggregate_type = rows->getString(KeyColumn::kAggregateType);
    event.aggregate_id = rows->getString(KeyColumn::kAggregateId);
    event.event_type = rows->getString(KeyColumn::kEventType);
    event.event_version = rows->getInt64(KeyColumn::kEventVersion);
    after_time_ = row.created_at;
    after_id_ = event.event_id;
    out.push_back(std::move(row));
  }
  return read;
}

std::vector<ReplayRow> ReplayReader::next() {
  std::vector<ReplayRow> chunk;
  if (done_) return chunk;
  const auto batch = static_cast<size_t>(batch_size_);
  TransactionScope transaction(session_);
  sql::PreparedStatement& select = session_.prepare(chunk_sql(schema_));
  select.setString(1, window_.until);
  select.setString(2, after_time_);
  select.setString(3, after_time_);
  select.setString(4, after_id_);
  select.setInt(5, batch_size_);
  if (read_keys(select, chunk) < batch) {
    done_ = true;  // every row after the key was read
  } else {
    sql::PreparedStatement& ties = session_.prepare(ties_sql(schema_));
    for (;;) {
      // Copies: read_keys() moves the key on while the statement is bound.
      const std::string time = after_time_;
      const std::string id = after_id_;
      ties.setString(1, time);
      ties.setString(2, id);
      ties.setInt(3, batch_size_);
      if (read_keys(ties, chunk) < batch) break;
    }
  }
  transaction.commit();
  return chunk;
}

std::vector<ReplayRow> ReplayReader::fetch_bodies(std::vector<ReplayRow> rows, size_t& gone) {
  std::unordered_map<std::string, size_t> at;
  std::vector<std::string> ids;
  for (size_t i = 0; i < rows.size(); ++i) {
    at.emplace(rows[i].event.event_id, i);
    ids.push_back(rows[i].event.event_id);
  }
  std::vector<bool> found(rows.size(), false);
  const size_t message_columns = schema_.message_columns().size();
  TransactionScope transaction(session_);
  for (size_t begin = 0; begin < ids.size(); begin += lease_sql::kMaxIdList) {
    const size_t count = std::min(lease_sql::kMaxIdList, ids.size() - begin);
    const size_t capacity = lease_sql::id_list_capacity(count);
    sql::PreparedStatement& select = session_.prepare(bodies_sql(schema_, capacity));
    bind_id_list(select, 1, ids, begin, count, capacity);
    std::unique_ptr<sql::ResultSet> result(select.executeQuery());
    while (result->next()) {
      const auto row = at.find(result->getString(1).asStdString());
      if (row == at.end() || found[row->second]) continue;
      found[row->second] = true;
      OutboxEvent& event = rows[row->second].event;
      event.payload = result->getString(2).asStdString();
      event.payload_bytes = event.payload.size();
      for (unsigned i = 0; i < message_columns; ++i) {
        const unsigned column = 3 + i;
        event.columns.push_back(result->isNull(column) ? std::nullopt
                                                       : std::optional<std::string>(std::string(
                                                             result->getString(column))));
      }
    }
  }
  transaction.commit();
  std::vector<ReplayRow> kept;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (found[i]) kept.push_back(std::move(rows[i]));
  }
  gone += rows.size() - kept.size();
  return kept;
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
