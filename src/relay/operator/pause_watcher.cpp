#include "operator/pause_watcher.hpp"

#include <cppconn/exception.h>
#include <spdlog/spdlog.h>

#include "interruptible_sleep.hpp"
#include "mysql/mysql_error.hpp"
#include "mysql/mysql_session.hpp"
#include "operator/operator_pause_sql.hpp"

namespace outbox {
namespace {

constexpr std::chrono::minutes kMissingTableRecheck{1};
// ER_TABLEACCESS_DENIED_ERROR: MySQL's answer to an account without a grant on the table,
// whether or not it exists (deploy/mysql-grants.sql grants the relay SELECT on outbox_pause).
constexpr int kTableAccessDenied = 1142;

std::string pause_name(const OperatorPause& pause) {
  return std::string(kind_word(pause.kind)) + " " + pause.name;
}

}  // namespace

PauseWatcher::PauseWatcher(MysqlEndpoint endpoint, std::string outbox_table, OperatorPauses& pauses,
                           Micros interval)
    : endpoint_(std::move(endpoint)),
      outbox_table_(std::move(outbox_table)),
      pauses_(pauses),
      interval_(interval) {
  thread_ = std::jthread([this](const std::stop_token& stop) { run(stop); });
}

PauseWatcher::~PauseWatcher() = default;

bool PauseWatcher::wait_until_known(const std::stop_token& stop) {
  std::unique_lock lock(mutex_);
  return known_changed_.wait(lock, stop, [this] { return known_; });
}

void PauseWatcher::run(const std::stop_token& stop) {
  const MysqlThreadScope thread_mysql;
  std::unique_ptr<MysqlSession> session;
  bool table_missing = false;
  // Set when held rows may wait for a pause that ended: at start (a pause may have ended
  // while no relay ran) and after each end seen. Cleared once a wake went through.
  bool wake_due = true;
  do {
    if (!session) {
      Outcome<std::unique_ptr<MysqlSession>> opened =
          MysqlSession::open(endpoint_, SessionSettings{});
      if (!opened) {
        spdlog::warn("pause watcher: {}", opened.error().message);
        continue;
      }
      session = std::move(opened).value();
    }
    try {
      const OperatorPauses::Change change = pauses_.replace(pause_sql::select_pauses(*session));
      if (table_missing) spdlog::info("pause watcher: table outbox_pause found; obeying it");
      table_missing = false;
      for (const OperatorPause& pause : change.began) {
        spdlog::warn("{} paused by operator: its events are held, the rest flow ({})",
                     pause_name(pause), held_error(pause));
      }
      for (const OperatorPause& pause : change.ended)
        spdlog::info("{} resumed by operator: its held events are woken", pause_name(pause));
      if (!change.ended.empty() || pauses_.take_wake_request()) wake_due = true;
    } catch (const sql::SQLException& e) {
      session->rollback_quietly();
      if (e.getErrorCode() == kNoSuchTableError || e.getErrorCode() == kTableAccessDenied) {
        if (!table_missing) {
          spdlog::warn(
              "pause watcher: {}: outboxctl pause is not obeyed until sql/014_outbox_pause.sql "
              "is applied and the relay's account may read outbox_pause "
              "(deploy/mysql-grants.sql; looked for again every minute)",
              describe_sql_error(e));
        }
        table_missing = true;
      } else {
        // The last pauses read stay in force: an unreadable table pauses nothing new and
        // resumes nothing.
        spdlog::warn("pause watcher: reading the pauses failed: {}", describe_sql_error(e));
        if (needs_new_session(e.getErrorCode())) session.reset();
        // Workers wait for a first read only while the server may just be out of reach (a
        // read at start keeps a restart from sending a paused topic's events); an error of
        // another kind would not go away by waiting.
        if (is_transient_error(e.getErrorCode())) continue;
      }
    }
    {
      std::lock_guard lock(mutex_);
      known_ = true;
    }
    known_changed_.notify_all();
    // The wake of rows held for ended pauses: after the pauses are known (so a failing wake,
    // on a read-only server say, never keeps the workers waiting), retried until it goes
    // through.
    if (wake_due && !table_missing && session) {
      try {
        const size_t woken = pause_sql::wake_ended(*session, outbox_table_);
        wake_due = false;
        if (woken > 0) spdlog::info("pause watcher: woke {} events held for ended pauses", woken);
      } catch (const sql::SQLException& e) {
        session->rollback_quietly();
        spdlog::warn("pause watcher: waking the events held for ended pauses failed: {}",
                     describe_sql_error(e));
        if (needs_new_session(e.getErrorCode())) session.reset();
      }
    }
  } while (sleep_unless_stopped(stop, table_missing ? Micros(kMissingTableRecheck) : interval_));
}

}  // namespace outbox
