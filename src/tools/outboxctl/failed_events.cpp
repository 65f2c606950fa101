// outboxctl requeue / skip: the operator's two answers to a FAILED event. requeue gives it
// another full set of attempts and of lease expiries (a row parked by relay.max_lease_expiries
// would otherwise be parked again at its next expiry); skip gives up on it for good (SKIPPED),
// which in per-aggregate mode lets the rest of its aggregate move on.
#include <cppconn/exception.h>

#include <iostream>

#include "command.hpp"
#include "failed_events.hpp"
#include "lease_store/mysql_lease_store.hpp"
#include "mysql/mysql_error.hpp"

namespace outbox::ctl {
namespace {

// Requeue --all-failed works in slices so it never holds many row locks at once.
constexpr int kRequeueSlice = 1000;

// The relay parks the rows behind a FAILED event with no recheck at all (they cannot move
// until an operator acts). Once this command acted, the aggregate's BLOCKED rows are due for a
// recheck again, so none depends on a single wake-up to move on. Param: event_id.
std::string recheck_aggregate(const std::string& table) {
  return "UPDATE " + table + " b JOIN " + table +
         " f ON f.aggregate_type = b.aggregate_type AND "
         "f.aggregate_id = b.aggregate_id SET b.next_attempt_at = CURRENT_TIMESTAMP(6) "
         "WHERE f.event_id = ? AND b.status = 'BLOCKED' AND b.next_attempt_at IS NULL";
}
// The same after requeue --all-failed: every BLOCKED row without a recheck, along
// idx_outbox_due (status, next_attempt_at). Param: slice size.
std::string recheck_all_parked(const std::string& table) {
  return "UPDATE " + table +
         " SET next_attempt_at = CURRENT_TIMESTAMP(6) "
         "WHERE status = 'BLOCKED' AND next_attempt_at IS NULL LIMIT ?";
}

std::string status_of(MysqlSession& session, const std::string& table,
                      const std::string& event_id) {
  sql::PreparedStatement& statement =
      session.prepare("SELECT status FROM " + table + " WHERE event_id = ?");
  statement.setString(1, event_id);
  std::unique_ptr<sql::ResultSet> rows(statement.executeQuery());
  return rows->next() ? std::string(rows->getString(1)) : std::string();
}

// Changes one FAILED event with `sql` (param: event_id); explains why when it is not FAILED.
int change_failed_event(CommandContext& context, const std::string& sql, const char* verb) {
  const std::string& event_id = context.args[0];
  TransactionScope transaction(context.session);
  sql::PreparedStatement& statement = context.session.prepare(sql);
  statement.setString(1, event_id);
  const int changed = statement.executeUpdate();
  if (changed != 0) {
    sql::PreparedStatement& recheck =
        context.session.prepare(recheck_aggregate(context.outbox_table));
    recheck.setString(1, event_id);
    recheck.executeUpdate();
  }
  const std::string now = status_of(context.session, context.outbox_table, event_id);
  transaction.commit();
  Value answer =
      Value::object().set("event_id", event_id).set(verb, changed != 0).set("status", now);
  if (changed == 0) {
    const std::string why = now.empty() ? "no such event" : "it is " + now + ", not FAILED";
    return refuse(context, std::move(answer), "event " + event_id + ": not " + verb + ": " + why);
  }
  if (context.json) {
    print_answer(context, answer);
  } else {
    std::cout << "event " << event_id << ": " << verb << ", now " << now << "\n";
  }
  return 0;
}

}  // namespace

int requeue(CommandContext& context) {
  if (context.args.size() != 1) return 64;
  if (context.args[0] != "--all-failed") {
    return change_failed_event(context,
                               "UPDATE " + context.outbox_table +
                                   " SET status = 'PENDING', attempts = 0, lease_expiries = 0, "
                                   "next_attempt_at = NULL "
                                   "WHERE event_id = ? AND status = 'FAILED'",
                               "requeued");
  }
  long total = 0;
  for (;;) {
    TransactionScope transaction(context.session);
    sql::PreparedStatement& statement =
        context.session.prepare("UPDATE " + context.outbox_table +
                                " SET status = 'PENDING', attempts = 0, lease_expiries = 0, "
                                "next_attempt_at = NULL "
                                "WHERE status = 'FAILED' ORDER BY created_at, event_id LIMIT ?");
    statement.setInt(1, kRequeueSlice);
    const int changed = statement.executeUpdate();
    transaction.commit();
    total += changed;
    if (changed < kRequeueSlice) break;
  }
  for (;;) {
    TransactionScope transaction(context.session);
    sql::PreparedStatement& statement =
        context.session.prepare(recheck_all_parked(context.outbox_table));
    statement.setInt(1, kRequeueSlice);
    const int changed = statement.executeUpdate();
    transaction.commit();
    if (changed < kRequeueSlice) break;
  }
  if (context.json) {
    print_answer(context, Value::object().set("requeued", static_cast<int64_t>(total)));
  } else {
    std::cout << total << " FAILED events requeued (PENDING, attempts reset)\n";
  }
  return 0;
}

int skip(CommandContext& context) {
  if (context.args.size() != 1) return 64;
  const int result = change_failed_event(context,
                                         "UPDATE " + context.outbox_table +
                                             " SET status = 'SKIPPED', next_attempt_at = NULL "
                                             "WHERE event_id = ? AND status = 'FAILED'",
                                         "skipped");
  if (result != 0 || claim_ordering(context.config.relay) != Ordering::kPerAggregate) return result;
  // Wake the aggregate's next event now rather than at its blocked-row recheck.
  ClaimPolicy policy;
  policy.schema = claim_schema(context.config);
  policy.ordering = Ordering::kPerAggregate;
  Outcome<std::unique_ptr<MysqlSession>> session =
      MysqlSession::open(context.endpoint, SessionSettings{});
  if (session) {
    MysqlLeaseStore store(std::move(session).value(), policy);
    if (Outcome<size_t> woken = store.wake_successors({context.args[0]}); !woken) {
      std::cerr << "note: " << woken.error().message
                << "; the relay wakes the aggregate's next event at its recheck instead\n";
    }
  }
  return 0;
}

}  // namespace outbox::ctl
