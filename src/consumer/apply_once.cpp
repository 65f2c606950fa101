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
ApplyOutcome fail(MysqlSession& session, std::string detail, bool connection_error) {
  const Status rolled_back = session.rollback();
  if (!rolled_back) {
    return {ApplyVerdict::kFailed, detail + "; then " + rolled_back.error().message, true};
  }
  return {ApplyVerdict::kFailed, std::move(detail), connection_error};
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
    if (!is_already_consumed(e.getErrorCode(), e.what())) {
      return fail(session, error, is_connection_error(e.getErrorCode()));
    }
    ApplyOutcome outcome = fail(session, error, false);
    if (outcome.session_lost) return outcome;  // not even the rollback is certain: retry
    return {ApplyVerdict::kAlreadyConsumed, error, false};
  }

  EffectResult effect = EffectResult::applied();
  try {
    effect = handler(session, event);
  } catch (const sql::SQLException& e) {
    return fail(session, "handler: " + describe_sql_error(e),
                is_connection_error(e.getErrorCode()));
  } catch (const std::exception& e) {
    return fail(session, std::string("handler: ") + e.what(), false);
  }
  if (!effect.is_applied()) {
    ApplyOutcome outcome = fail(session, effect.reason(), false);
    if (outcome.session_lost) return outcome;  // not even the rollback is certain: retry
    return {ApplyVerdict::kRejected, effect.reason(), false};
  }

  if (failpoints::hit(failpoints::kConsumerBeforeCommit)) {
    return fail(session, "failpoint consumer.before_commit", false);
  }
  try {
    session.commit();
  } catch (const sql::SQLException& e) {
    // The server may have committed; no rollback can prove it did not.
    return {ApplyVerdict::kCommitUnknown, "COMMIT: " + describe_sql_error(e), true};
  }
  return {ApplyVerdict::kApplied, "", false};
}

}  // namespace outbox::consumer
