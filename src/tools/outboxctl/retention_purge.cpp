#include "retention_purge.hpp"

#include <functional>
#include <vector>

#include "claim_sql.hpp"
#include "mysql/id_list_binding.hpp"

namespace outbox::ctl {
namespace {

// Keys travel between batches as this text, which MySQL compares as the exact TIMESTAMP(6).
constexpr const char* kKeyTimeFormat = "'%Y-%m-%d %H:%i:%s.%f'";
// Before every TIMESTAMP value (their range starts at 1970-01-01 00:00:01 UTC): the first
// batch's "after" key.
constexpr const char* kBeforeAnyTime = "1970-01-01 00:00:00.000000";

// "now - window" on the database clock, as a key.
std::string cutoff_of(MysqlSession& session, Micros window) {
  sql::PreparedStatement& statement =
      session.prepare(std::string("SELECT DATE_FORMAT(CURRENT_TIMESTAMP(6) - INTERVAL ? ") +
                      "MICROSECOND, " + kKeyTimeFormat + ")");
  statement.setInt64(1, window.count());
  std::unique_ptr<sql::ResultSet> rows(statement.executeQuery());
  rows->next();
  return rows->getString(1).asStdString();
}

std::string iso_of(std::string key_time) {
  key_time[10] = 'T';
  return key_time + "Z";
}

// The events of one status to purge, in (created_at, event_id) order along
// idx_outbox_pending, after the previous batch's last key: rows that are old by created_at but
// were published recently are stepped over once, not re-read by every batch.
// Params: status, cutoff, cutoff, then the key (time, time, id) and the limit.
std::string select_events(const std::string& table) {
  return std::string("SELECT event_id, DATE_FORMAT(created_at, ") + kKeyTimeFormat + ") FROM " +
         table +
         " FORCE INDEX (idx_outbox_pending) WHERE status = ? AND created_at < ? "
         "AND COALESCE(published_at, created_at) < ? "
         "AND (created_at > ? OR (created_at = ? AND event_id > ?)) "
         "ORDER BY created_at, event_id LIMIT ?";
}

// The delete checks again what the (unlocked) select saw. Params: ids[capacity], status, cutoff.
std::string delete_events(const std::string& table, size_t capacity) {
  return "DELETE FROM " + table + " WHERE event_id IN (" + claim_sql::placeholders(capacity) +
         ") AND status = ? AND COALESCE(published_at, created_at) < ?";
}

// consumed_event rows in (consumed_at, id) order along idx_consumed_event_consumed_at.
// Params: cutoff, then the key (time, time, id) and the limit.
const std::string kSelectConsumed =
    std::string("SELECT id, DATE_FORMAT(consumed_at, ") + kKeyTimeFormat +
    ") FROM consumed_event FORCE INDEX (idx_consumed_event_consumed_at) WHERE consumed_at < ? "
    "AND (consumed_at > ? OR (consumed_at = ? AND id > ?)) ORDER BY consumed_at, id LIMIT ?";

// Params: ids[capacity], cutoff.
std::string delete_consumed(size_t capacity) {
  return "DELETE FROM consumed_event WHERE id IN (" + claim_sql::placeholders(capacity) +
         ") AND consumed_at < ?";
}

// The first column as an id of the walk's type (the second argument only picks the overload).
std::string id_at(sql::ResultSet& rows, const std::string&) {
  return rows.getString(1).asStdString();
}
int64_t id_at(sql::ResultSet& rows, int64_t) {
  return rows.getInt64(1);
}

// One table's walk through the rows to purge, a batch at a time, in key order.
template <typename Id>
struct BatchWalk {
  MysqlSession& session;
  std::string select_sql;  // filters first, then key (time, time, id) and limit
  std::function<std::string(size_t)> delete_sql;  // ids, then delete_filters
  std::vector<std::string> select_filters;
  std::vector<std::string> delete_filters;
  int batch_size;
  std::string after_time = kBeforeAnyTime;
  Id after_id{};

  // The ids of the next batch (empty at the end); remembers its last key.
  std::vector<Id> next_batch() {
    sql::PreparedStatement& select = session.prepare(select_sql);
    unsigned at = 1;
    for (const std::string& filter : select_filters)
      select.setString(at++, filter);
    select.setString(at++, after_time);
    select.setString(at++, after_time);
    bind_id(select, at++, after_id);
    select.setInt(at, batch_size);
    std::vector<Id> ids;
    std::unique_ptr<sql::ResultSet> rows(select.executeQuery());
    while (rows->next()) {
      ids.push_back(id_at(*rows, after_id));
      after_time = rows->getString(2);
    }
    if (!ids.empty()) after_id = ids.back();
    return ids;
  }

  // Deletes the batch's rows in one statement of the smallest fixed capacity that holds them.
  int64_t remove(const std::vector<Id>& ids) {
    const size_t capacity = claim_sql::id_list_capacity(ids.size());
    sql::PreparedStatement& statement = session.prepare(delete_sql(capacity));
    bind_id_list(statement, 1, ids, 0, ids.size(), capacity);
    unsigned at = static_cast<unsigned>(capacity) + 1;
    for (const std::string& filter : delete_filters)
      statement.setString(at++, filter);
    return statement.executeUpdate();
  }

  // Every batch, each in its own short transaction. A dry run only counts.
  void run(bool dry_run, PurgeResult& result) {
    for (;;) {
      TransactionScope transaction(session);
      const std::vector<Id> ids = next_batch();
      if (ids.empty()) return;
      result.rows += dry_run ? static_cast<int64_t>(ids.size()) : remove(ids);
      transaction.commit();
      ++result.batches;
      if (ids.size() < static_cast<size_t>(batch_size)) return;
    }
  }
};

}  // namespace

PurgeResult purge_outbox_events(MysqlSession& session, const std::string& table, Micros window,
                                int batch_size, bool dry_run) {
  const std::string cutoff = cutoff_of(session, window);
  PurgeResult result;
  result.cutoff = iso_of(cutoff);
  for (const std::string status : {"PUBLISHED", "SKIPPED"}) {
    BatchWalk<std::string> walk{
        .session = session,
        .select_sql = select_events(table),
        .delete_sql = [&table](size_t capacity) { return delete_events(table, capacity); },
        .select_filters = {status, cutoff, cutoff},
        .delete_filters = {status, cutoff},
        .batch_size = batch_size};
    walk.run(dry_run, result);
  }
  return result;
}

PurgeResult purge_consumed_events(MysqlSession& session, Micros window, int batch_size,
                                  bool dry_run) {
  const std::string cutoff = cutoff_of(session, window);
  PurgeResult result;
  result.cutoff = iso_of(cutoff);
  BatchWalk<int64_t> walk{.session = session,
                          .select_sql = kSelectConsumed,
                          .delete_sql = delete_consumed,
                          .select_filters = {cutoff},
                          .delete_filters = {cutoff},
                          .batch_size = batch_size};
  walk.run(dry_run, result);
  return result;
}

}  // namespace outbox::ctl
