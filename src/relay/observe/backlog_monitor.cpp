#include "observe/backlog_monitor.hpp"

#include <cppconn/exception.h>
#include <spdlog/spdlog.h>

#include "interruptible_sleep.hpp"
#include "mysql/mysql_error.hpp"
#include "mysql/mysql_session.hpp"

namespace outbox {
namespace {

BacklogSnapshot query_backlog(MysqlSession& session, const lease_sql::Schema& schema,
                              Ordering ordering) {
  BacklogSnapshot snapshot;
  snapshot.valid = true;
  TransactionScope transaction(session);
  std::unique_ptr<sql::ResultSet> rows(
      session
          .prepare("SELECT status, COUNT(*), TIMESTAMPDIFF(MICROSECOND, MIN(created_at), "
                   "CURRENT_TIMESTAMP(6)) FROM " +
                   schema.table() +
                   " FORCE INDEX (idx_outbox_pending) "
                   "WHERE status IN ('PENDING', 'PUBLISHING', 'RETRY', 'BLOCKED', 'FAILED') "
                   "GROUP BY status")
          .executeQuery());
  for (const char* status : {"PENDING", "PUBLISHING", "RETRY", "BLOCKED", "FAILED"}) {
    snapshot.by_status[status] = 0;
  }
  while (rows->next()) {
    const std::string status = rows->getString(1);
    snapshot.by_status[status] = rows->getInt64(2);
    const double age = static_cast<double>(rows->getInt64(3)) / 1e6;
    if (status == "FAILED") {
      snapshot.oldest_failed_age_seconds = age;
    } else {
      snapshot.oldest_unpublished_age_seconds =
          std::max(snapshot.oldest_unpublished_age_seconds, age);
    }
  }
  rows.reset();
  if (ordering == Ordering::kPerAggregate && snapshot.by_status["FAILED"] > 0) {
    std::unique_ptr<sql::ResultSet> blocked(
        session
            .prepare("SELECT COUNT(DISTINCT aggregate_type, aggregate_id) FROM " + schema.table() +
                     " FORCE INDEX (idx_outbox_pending) WHERE status = 'FAILED'")
            .executeQuery());
    blocked->next();
    snapshot.blocked_aggregates = blocked->getInt64(1);
  }
  transaction.commit();
  return snapshot;
}

}  // namespace

BacklogMonitor::BacklogMonitor(MysqlEndpoint endpoint, lease_sql::Schema schema, Micros interval,
                               Ordering ordering, HealthBoard& health)
    : endpoint_(std::move(endpoint)),
      schema_(std::move(schema)),
      interval_(interval),
      ordering_(ordering),
      health_(health) {
  thread_ = std::jthread([this](const std::stop_token& stop) { run(stop); });
}

BacklogMonitor::~BacklogMonitor() = default;

BacklogSnapshot BacklogMonitor::snapshot() const {
  std::lock_guard lock(mutex_);
  return snapshot_;
}

void BacklogMonitor::run(const std::stop_token& stop) {
  const MysqlThreadScope thread_mysql;
  std::unique_ptr<MysqlSession> session;
  do {
    // Only reads: a read-only server looks fine from here, and the workers say otherwise.
    std::string problem;
    if (!session) {
      Outcome<std::unique_ptr<MysqlSession>> opened =
          MysqlSession::open(endpoint_, SessionSettings{});
      if (opened) {
        session = std::move(opened).value();
      } else {
        spdlog::warn("backlog monitor: {}", opened.error().message);
        problem = "mysql: cannot open a session (details in the log)";
      }
    }
    if (session) {
      try {
        BacklogSnapshot fresh = query_backlog(*session, schema_, ordering_);
        std::lock_guard lock(mutex_);
        snapshot_ = std::move(fresh);
      } catch (const sql::SQLException& e) {
        spdlog::warn("backlog query failed: {}", describe_sql_error(e));
        if (needs_new_session(e.getErrorCode())) {
          session.reset();
          // The server's words can name its host (the warning above has them); /readyz not.
          problem = session_condition(e.getErrorCode()) + ": backlog query failed";
        }
      }
    }
    health_.set_problem(health_.backlog_monitor(), problem);
  } while (sleep_unless_stopped(stop, interval_));
}

}  // namespace outbox
