#include "apply_once.hpp"

#include <cppconn/exception.h>

#include "duplicate_classifier.hpp"
#include "failpoint.hpp"
#include "mysql/mysql_error.hpp"

namespace outbox::consumer {
namespace {

constexpr const char* kInsertConsumedEvent =
    "INSERT INTO consumed_event (consumer_name, event_id, consumed_at) "
    "VALUES (?, ?, CURRENT_TIMESTAMP(6))";

// Nothing of the transaction may be committed after a failure: roll back, and when even that
// fails, report the session lost (the server rolls back when it notices).
ApplyOutcome fail(MysqlSession& session, std::string detail, bool connection_error,
                  bool counts_attempt) {
  const Status rolled_back = session.rollback();
  if (!rolled_back) {
    return {ApplyVerdict::kFailed, detail + "; then " + rolled_back.error().message, true, false};
  }
  return {ApplyVerdict::kFailed, std::move(detail), connection_error, counts_attempt};
}

ApplyOutcome fail_on(MysqlSession& session, std::string detail, const sql::SQLException& e) {
  return fail(session, std::move(detail), is_connection_error(e.getErrorCode()),
              !is_transient_error(e.getErrorCode()));
}

}  // namespace

ApplyOutcome apply_once(MysqlSession& session, const std::string& consumer_name,
                        const ReceivedEvent& event, const EventHandler& handler) {
  try {
    sql::PreparedStatement& claim = session.prepare(kInsertConsumedEvent);
    claim.setString(1, consumer_name);
    claim.setString(2, event.event_id);
    claim.executeUpdate();
  } catch (const sql::SQLException& e) {
    const std::string error = "INSERT INTO consumed_event: " + describe_sql_error(e);
    if (!is_already_consumed(e.getErrorCode(), e.what())) return fail_on(session, error, e);
    ApplyOutcome outcome = fail(session, error, false, false);
    if (outcome.session_lost) return outcome;  // not even the rollback is certain: retry
    return {ApplyVerdict::kAlreadyConsumed, error, false, false};
  }

  EffectResult effect = EffectResult::applied();
  try {
    effect = handler(session, event);
  } catch (const sql::SQLException& e) {
    return fail_on(session, "handler: " + describe_sql_error(e), e);
  } catch (const std::exception& e) {
    return fail(session, std::string("handler: ") + e.what(), false, true);
  }
  if (!effect.is_applied()) {
    ApplyOutcome outcome = fail(session, effect.reason(), false, false);
    if (outcome.session_lost) return outcome;  // not even the rollback is certain: retry
    return {ApplyVerdict::kRejected, effect.reason(), false, false};
  }

  if (failpoints::hit(failpoints::kConsumerBeforeCommit)) {
    return fail(session, "failpoint consumer.before_commit", false, false);
  }
  try {
    session.commit();
  } catch (const sql::SQLException& e) {
    // The server may have committed; no rollback can prove it did not.
    return {ApplyVerdict::kCommitUnknown, "COMMIT: " + describe_sql_error(e), true, false};
  }
  return {ApplyVerdict::kApplied, "", false, false};
}

}  // namespace outbox::consumer
