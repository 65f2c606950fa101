#include "retention_purge.hpp"

#include <cppconn/exception.h>

#include <functional>
#include <map>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "lease_store/lease_sql.hpp"
#include "mysql/id_list_binding.hpp"
#include "mysql/mysql_error.hpp"

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
  return "DELETE FROM " + table + " WHERE event_id IN (" + lease_sql::placeholders(capacity) +
         ") AND status = ? AND COALESCE(published_at, created_at) < ?";
}

// The batch's rows that its delete removes, with their key of outbox_purge_log (the hour of
// created_at, in the session's UTC; aggregate_type; event_type), locked, so that the delete
// that follows in the same transaction removes exactly the rows read. Counted here, byte for
// byte (count_by_key): a GROUP BY would follow the columns' collation, case-insensitive by
// default, and merge ORDER with Order, which the relay routes to two topics.
// Params as the delete's: ids[capacity], status, cutoff.
std::string lock_events(const std::string& table, size_t capacity) {
  return "SELECT DATE_FORMAT(created_at, '%Y-%m-%d %H:00:00'), aggregate_type, event_type FROM " +
         table + " WHERE event_id IN (" + lease_sql::placeholders(capacity) +
         ") AND status = ? AND COALESCE(published_at, created_at) < ? FOR UPDATE";
}

// Adds one count to outbox_purge_log (sql/015_outbox_purge_log.sql). Params: created_hour,
// aggregate_type, event_type, count, count. Not VALUES(purged_events) in the update: deprecated
// since MySQL 8.0.20.
constexpr const char* kRecordPurged =
    "INSERT INTO outbox_purge_log (created_hour, aggregate_type, event_type, purged_events) "
    "VALUES (?, ?, ?, ?) ON DUPLICATE KEY UPDATE purged_events = purged_events + ?";

// PurgeResult::purge_log when the log cannot be written: it is the only record of what was
// purged, so the answer says so, but retention itself must not depend on it.
constexpr const char* kPurgeLogMissing =
    "missing: apply sql/015_outbox_purge_log.sql; a replay cannot count the events purged";
constexpr const char* kPurgeLogDenied =
    "not written: this account may not write outbox_purge_log (apply "
    "sql/015_outbox_purge_log.sql and its grant in deploy/mysql-grants.sql); a replay cannot "
    "count the events purged";

// "" when this session can record purges, else why not (kPurgeLog*). Preparing the upsert is
// the probe: MySQL and MariaDB both check, at PREPARE, that the table exists and that the
// account holds INSERT, UPDATE and SELECT (the update reads purged_events) on it. So it runs
// nothing and writes nothing (a dry run probes too, and says what a real run would), once
// before the walk rather than in every batch, and the statement stays prepared for the batches.
std::string purge_log_problem(MysqlSession& session) {
  try {
    session.prepare(kRecordPurged);
    return "";
  } catch (const sql::SQLException& e) {
    session.rollback_quietly();
    if (e.getErrorCode() == kNoSuchTableError) return kPurgeLogMissing;
    if (e.getErrorCode() == kTableAccessDeniedError ||
        e.getErrorCode() == kColumnAccessDeniedError) {
      return kPurgeLogDenied;
    }
    throw;
  }
}

// One row of count_events: how many events of one purge-log key the batch deletes.
struct PurgedEventCount {
  std::string created_hour;  // "2026-12-06 10:00:00"
  std::string aggregate_type;
  std::string event_type;
  int64_t events = 0;
};

// The locked rows counted per key, in key order: concurrent purges add to the log's rows in
// one order and never deadlock there.
std::vector<PurgedEventCount> read_purged_counts(sql::PreparedStatement& lock) {
  std::map<std::tuple<std::string, std::string, std::string>, int64_t> by_key;
  std::unique_ptr<sql::ResultSet> rows(lock.executeQuery());
  while (rows->next()) {
    ++by_key[{rows->getString(1).asStdString(), rows->getString(2).asStdString(),
              rows->getString(3).asStdString()}];
  }
  std::vector<PurgedEventCount> counts;
  counts.reserve(by_key.size());
  for (const auto& [key, events] : by_key) {
    counts.push_back({.created_hour = std::get<0>(key),
                      .aggregate_type = std::get<1>(key),
                      .event_type = std::get<2>(key),
                      .events = events});
  }
  return counts;
}

// Adds the batch's counts to outbox_purge_log, in the batch's transaction. The counted rows
// were locked, so the delete removed exactly them: any difference means the log would be wrong,
// and the throw rolls the batch back (nothing deleted, nothing recorded).
void record_purged(MysqlSession& session, const std::vector<PurgedEventCount>& counts,
                   int64_t deleted) {
  int64_t counted = 0;
  for (const PurgedEventCount& count : counts)
    counted += count.events;
  if (counted != deleted) {
    throw std::runtime_error("purge: counted " + std::to_string(counted) +
                             " locked events for outbox_purge_log but deleted " +
                             std::to_string(deleted) + "; the batch was rolled back");
  }
  sql::PreparedStatement& record = session.prepare(kRecordPurged);
  for (const PurgedEventCount& count : counts) {
    record.setString(1, count.created_hour);
    record.setString(2, count.aggregate_type);
    record.setString(3, count.event_type);
    record.setInt64(4, count.events);
    record.setInt64(5, count.events);
    record.executeUpdate();
  }
}

// consumed_event rows in (consumed_at, id) order along idx_consumed_event_consumed_at.
// Params: cutoff, then the key (time, time, id) and the limit.
const std::string kSelectConsumed =
    std::string("SELECT id, DATE_FORMAT(consumed_at, ") + kKeyTimeFormat +
    ") FROM consumed_event FORCE INDEX (idx_consumed_event_consumed_at) WHERE consumed_at < ? "
    "AND (consumed_at > ? OR (consumed_at = ? AND id > ?)) ORDER BY consumed_at, id LIMIT ?";

// Params: ids[capacity], cutoff.
std::string delete_consumed(size_t capacity) {
  return "DELETE FROM consumed_event WHERE id IN (" + lease_sql::placeholders(capacity) +
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
  // Set for the PUBLISHED walk while outbox_purge_log can be written: each batch's rows are
  // counted under lock before its delete (count_events: parameters as delete_sql's), and the
  // counts recorded after it, in the same transaction.
  std::function<std::string(size_t)> count_sql = nullptr;
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

  // The statement `text`, prepared and bound as the delete is: ids[capacity], delete_filters.
  sql::PreparedStatement& bound(const std::string& text, const std::vector<Id>& ids,
                                size_t capacity) {
    sql::PreparedStatement& statement = session.prepare(text);
    bind_id_list(statement, 1, ids, 0, ids.size(), capacity);
    unsigned at = static_cast<unsigned>(capacity) + 1;
    for (const std::string& filter : delete_filters)
      statement.setString(at++, filter);
    return statement;
  }

  // Deletes the batch's rows in one statement of the smallest fixed capacity that holds them
  // (counted into outbox_purge_log first when count_sql is set).
  int64_t remove(const std::vector<Id>& ids) {
    const size_t capacity = lease_sql::id_list_capacity(ids.size());
    if (!count_sql) return bound(delete_sql(capacity), ids, capacity).executeUpdate();
    const std::vector<PurgedEventCount> counts =
        read_purged_counts(bound(count_sql(capacity), ids, capacity));
    const int64_t deleted = bound(delete_sql(capacity), ids, capacity).executeUpdate();
    record_purged(session, counts, deleted);
    return deleted;
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
  result.purge_log = purge_log_problem(session);
  for (const std::string status : {"PUBLISHED", "SKIPPED"}) {
    // Only PUBLISHED events are logged: a SKIPPED one was never published, so a replay has
    // nothing of it to miss.
    std::function<std::string(size_t)> count_sql;
    if (status == "PUBLISHED" && result.purge_log.empty())
      count_sql = [&table](size_t capacity) { return lock_events(table, capacity); };
    BatchWalk<std::string> walk{
        .session = session,
        .select_sql = select_events(table),
        .delete_sql = [&table](size_t capacity) { return delete_events(table, capacity); },
        .count_sql = count_sql,
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
