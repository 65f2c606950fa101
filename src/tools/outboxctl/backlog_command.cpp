// outboxctl backlog: how much is waiting and how old it is. Counts every status but PUBLISHED
// (history, not backlog: counting it would read the whole table) along idx_outbox_pending,
// whose first column is the status, so the cost follows the backlog, not the history.
#include <map>

#include "backlog_command.hpp"
#include "pause_commands.hpp"
#include "row_values.hpp"

namespace outbox::ctl {
namespace {

// In the order an event passes through them; a status outside this list (written by something
// else) is still counted, after these.
constexpr const char* kStatuses[] = {"PENDING", "PUBLISHING", "RETRY",
                                     "BLOCKED", "FAILED",     "SKIPPED"};

// The relay's last_error prefix for an event held for a paused partition
// (src/relay/operator/paused_partitions.hpp): "partition paused: outbox.PAYMENT[2]: <error> (paused
// for 45s)".
constexpr const char* kPausedPrefix = "partition paused: ";

// Events held for paused partitions, per partition: RETRY rows (idx_outbox_pending, status
// first) whose last_error says so. What the relay held at its last write: a partition that
// resumed since shows until its events are woken and published (seconds).
Value paused_partitions(CommandContext& context) {
  sql::PreparedStatement& statement = context.session.prepare(
      "SELECT SUBSTRING_INDEX(SUBSTRING(last_error, CHAR_LENGTH(?) + 1), ': ', 1) AS held_for, "
      "COUNT(*), " +
      age_micros("MIN(created_at)") + " FROM " + context.outbox_table +
      " FORCE INDEX (idx_outbox_pending) WHERE status = 'RETRY' AND last_error LIKE "
      "CONCAT(?, '%') GROUP BY held_for ORDER BY held_for");
  statement.setString(1, kPausedPrefix);
  statement.setString(2, kPausedPrefix);
  std::unique_ptr<sql::ResultSet> rows(statement.executeQuery());
  Value held = Value::list();
  while (rows->next()) {
    held.add(Value::object()
                 .set("partition", std::string(rows->getString(1)))
                 .set("events", rows->getInt64(2))
                 .set("oldest_age_seconds", seconds_at(*rows, 3)));
  }
  return held;
}

}  // namespace

int backlog(CommandContext& context) {
  if (!context.args.empty()) return 64;
  TransactionScope read(context.session);
  std::unique_ptr<sql::ResultSet> rows(
      context.session
          .prepare("SELECT status, COUNT(*), " + age_micros("MIN(created_at)") + " FROM " +
                   context.outbox_table +
                   " FORCE INDEX (idx_outbox_pending) WHERE status <> "
                   "'PUBLISHED' GROUP BY status")
          .executeQuery());
  std::map<std::string, int64_t> counts;
  std::map<std::string, Value> oldest;
  while (rows->next()) {
    counts[rows->getString(1)] = rows->getInt64(2);
    oldest[rows->getString(1)] = seconds_at(*rows, 3);
  }
  Value by_status = Value::object();
  for (const char* status : kStatuses) {
    by_status.set(status, counts[status]);
    counts.erase(status);
  }
  for (const auto& [status, count] : counts)
    by_status.set(status, count);

  // In per-aggregate mode a FAILED event holds back every later event of its aggregate until
  // it is requeued or skipped.
  int64_t blocked_aggregates = 0;
  if (claim_ordering(context.config.relay) == Ordering::kPerAggregate) {
    std::unique_ptr<sql::ResultSet> blocked(
        context.session
            .prepare("SELECT COUNT(*) FROM (SELECT DISTINCT aggregate_type, aggregate_id FROM " +
                     context.outbox_table + " WHERE status = 'FAILED') f")
            .executeQuery());
    blocked->next();
    blocked_aggregates = blocked->getInt64(1);
  }
  print_answer(context,
               Value::object()
                   .set("by_status", std::move(by_status))
                   .set("oldest_pending_age_seconds", oldest["PENDING"])
                   .set("oldest_failed_age_seconds", oldest["FAILED"])
                   .set("blocked_aggregates", blocked_aggregates)
                   .set("held_for_paused_partitions", paused_partitions(context))
                   .set("operator_pauses", operator_pauses_answer(context))
                   .set("ordering", claim_ordering(context.config.relay) == Ordering::kPerAggregate
                                        ? "per_aggregate"
                                        : "none"));
  return 0;
}

}  // namespace outbox::ctl
