#include "replay_purged.hpp"

#include <cppconn/exception.h>

#include <memory>

#include "mysql/mysql_error.hpp"

namespace outbox::ctl {
namespace {

// Per (aggregate_type, event_type): the purged events of hours wholly inside [since, until),
// then those of the hours the window covers in part. Params: since, until, since, until.
constexpr const char* kSelectPurged =
    "SELECT aggregate_type, event_type, "
    "SUM(CASE WHEN created_hour >= ? AND created_hour + INTERVAL 1 HOUR <= ? "
    "THEN purged_events ELSE 0 END), SUM(purged_events) "
    "FROM outbox_purge_log WHERE created_hour > ? - INTERVAL 1 HOUR AND created_hour < ? "
    "GROUP BY aggregate_type, event_type";

}  // namespace

PurgedInWindow purged_in_window(MysqlSession& session, const ReplayWindow& window,
                                const TopicRouter& router, const std::optional<std::string>& topic,
                                const std::optional<std::string>& aggregate_type) {
  PurgedInWindow purged;
  // No SELECT on the table is as good as no table here.
  try {
    TransactionScope transaction(session);
    sql::PreparedStatement& select = session.prepare(kSelectPurged);
    select.setString(1, window.since);
    select.setString(2, window.until);
    select.setString(3, window.since);
    select.setString(4, window.until);
    std::unique_ptr<sql::ResultSet> rows(select.executeQuery());
    while (rows->next()) {
      OutboxEvent event;
      event.aggregate_type = rows->getString(1);
      event.event_type = rows->getString(2);
      if (aggregate_type && event.aggregate_type != *aggregate_type) continue;
      if (topic) {
        const Outcome<std::string> routed = router.route(event);
        if (!routed || routed.value() != *topic) continue;
      }
      const int64_t inside = rows->getInt64(3);
      purged.inside += inside;
      purged.at_edges += rows->getInt64(4) - inside;
    }
    transaction.commit();
  } catch (const sql::SQLException& e) {
    if (e.getErrorCode() != kNoSuchTableError && e.getErrorCode() != kTableAccessDeniedError) throw;
    return PurgedInWindow{};
  }
  purged.known = true;
  return purged;
}

}  // namespace outbox::ctl
