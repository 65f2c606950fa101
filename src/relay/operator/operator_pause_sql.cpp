#include "operator/operator_pause_sql.hpp"

#include <algorithm>
#include <memory>

#include "lease_store/lease_sql.hpp"

namespace outbox::pause_sql {
namespace {

// Held rows: RETRY with no recheck. Only an operator's pause writes that (a retriable failure
// always sets a recheck, the last one goes to FAILED); the last_error prefix says so too.
constexpr const char* kHeld = "e.status = 'RETRY' AND e.next_attempt_at IS NULL";

// Whether a pause in force holds row `e`: its aggregate type is paused, or its last_error names
// a paused topic. Compared as bytes: outbox_pause's collations need not be the outbox table's
// (an adopted table), and names are matched exactly in the relay too. Binds the topic prefix
// (held_prefix's start for topics) twice.
std::string held_now() {
  return std::string("EXISTS (SELECT 1 FROM ") + kPauseTable +
         " p WHERE (p.kind = 'aggregate_type' AND CAST(p.name AS BINARY) = CAST(e.aggregate_type "
         "AS BINARY)) OR (p.kind = 'topic' AND CAST(LEFT(e.last_error, CHAR_LENGTH(CONCAT(?, "
         "p.name, ': '))) AS BINARY) = CAST(CONCAT(?, p.name, ': ') AS BINARY)))";
}

std::string topic_prefix() {
  return std::string(kOperatorHoldPrefix) + kind_word(OperatorPause::Kind::kTopic) + " ";
}

constexpr size_t kWakeChunk = lease_sql::kMaxIdList;

}  // namespace

std::vector<OperatorPause> select_pauses(MysqlSession& session) {
  std::unique_ptr<sql::ResultSet> rows(
      session
          .prepare(std::string("SELECT kind, name, reason, paused_by, DATE_FORMAT(paused_at, "
                               "'%Y-%m-%d %H:%i:%s') FROM ") +
                   kPauseTable + " ORDER BY kind, name")
          .executeQuery());
  std::vector<OperatorPause> pauses;
  while (rows->next()) {
    // A kind written by something else than outboxctl is not a pause this version knows.
    const std::optional<OperatorPause::Kind> kind = parse_kind(rows->getString(1));
    if (!kind) continue;
    pauses.push_back(OperatorPause{*kind, rows->getString(2), rows->getString(3),
                                   rows->getString(4), rows->getString(5)});
  }
  rows.reset();
  session.commit();  // ends the read's snapshot: the next poll sees the next commit
  return pauses;
}

size_t wake_ended(MysqlSession& session, const std::string& outbox_table) {
  sql::PreparedStatement& select = session.prepare(
      "SELECT e.event_id FROM " + outbox_table + " e FORCE INDEX (idx_outbox_due) WHERE " + kHeld +
      " AND e.event_id > ? ORDER BY e.event_id LIMIT ?");
  size_t woken = 0;
  std::string after;
  while (true) {
    select.setString(1, after);
    select.setUInt64(2, kWakeChunk);
    std::vector<std::string> ids;
    {
      std::unique_ptr<sql::ResultSet> rows(select.executeQuery());
      while (rows->next())
        ids.push_back(rows->getString(1));
    }
    if (ids.empty()) break;
    after = ids.back();
    const size_t capacity = lease_sql::id_list_capacity(ids.size());
    sql::PreparedStatement& wake = session.prepare(
        "UPDATE " + outbox_table + " e SET e.next_attempt_at = CURRENT_TIMESTAMP(6) WHERE " +
        kHeld + " AND e.event_id IN (" + lease_sql::placeholders(capacity) +
        ") AND e.last_error LIKE CONCAT(?, '%') AND NOT " + held_now());
    uint32_t index = 1;
    for (size_t i = 0; i < capacity; ++i)
      wake.setString(index++, ids[std::min(i, ids.size() - 1)]);
    wake.setString(index++, kOperatorHoldPrefix);
    wake.setString(index++, topic_prefix());
    wake.setString(index++, topic_prefix());
    woken += static_cast<size_t>(wake.executeUpdate());
    session.commit();
    if (ids.size() < kWakeChunk) break;
  }
  session.commit();
  return woken;
}

HeldRows count_held(MysqlSession& session, const std::string& outbox_table,
                    const std::string& prefix) {
  sql::PreparedStatement& statement = session.prepare(
      "SELECT COUNT(*), COALESCE(TIMESTAMPDIFF(MICROSECOND, MIN(e.created_at), "
      "CURRENT_TIMESTAMP(6)), -1) FROM " +
      outbox_table + " e FORCE INDEX (idx_outbox_due) WHERE " + kHeld +
      " AND CAST(LEFT(e.last_error, CHAR_LENGTH(?)) AS BINARY) = CAST(? AS BINARY)");
  statement.setString(1, prefix);
  statement.setString(2, prefix);
  std::unique_ptr<sql::ResultSet> rows(statement.executeQuery());
  HeldRows held;
  if (rows->next()) {
    held.events = rows->getInt64(1);
    held.oldest_age_us = rows->getInt64(2);
  }
  return held;
}

long long count_held_for_ended(MysqlSession& session, const std::string& outbox_table) {
  sql::PreparedStatement& statement = session.prepare(
      "SELECT COUNT(*) FROM " + outbox_table + " e FORCE INDEX (idx_outbox_due) WHERE " + kHeld +
      " AND e.last_error LIKE CONCAT(?, '%') AND NOT " + held_now());
  statement.setString(1, kOperatorHoldPrefix);
  statement.setString(2, topic_prefix());
  statement.setString(3, topic_prefix());
  std::unique_ptr<sql::ResultSet> rows(statement.executeQuery());
  return rows->next() ? rows->getInt64(1) : 0;
}

}  // namespace outbox::pause_sql
