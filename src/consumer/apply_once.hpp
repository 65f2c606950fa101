#pragma once

#include <string>

#include "event_handler.hpp"
#include "mysql/mysql_session.hpp"
#include "received_event.hpp"

namespace outbox::consumer {

enum class ApplyVerdict {
  kApplied,          // committed: consumed_event row + the handler's effect; acknowledge
  kAlreadyConsumed,  // uq_consumed_event_identity refused the row: acknowledge, no effect
  kRejected,         // the handler rejected the event: nothing committed; dead-letter it
  kFailed,           // nothing committed (rollback confirmed or never reached COMMIT): retry
  kCommitUnknown,    // COMMIT threw: maybe committed. Do not acknowledge; the redelivery
                     // resolves it through uq_consumed_event_identity
};

struct ApplyOutcome {
  ApplyVerdict verdict = ApplyVerdict::kFailed;
  std::string detail;         // the error or the rejection reason
  bool session_lost = false;  // the session is unusable: open a new one before the next event
  // For kFailed: the failure is the event's or its handler's (a handler exception, an error
  // about the statement or its data), so trying it again may never succeed and counts toward
  // consumer.max_attempts. False for the moment's trouble (a lost session, a lock wait, a
  // deadlock, a read-only server), which is retried however long it lasts.
  bool counts_attempt = false;
};

// The seed's consumer transaction for one event, on `session` (autocommit off):
//   INSERT INTO consumed_event (consumer_name, event_id, consumed_at = CURRENT_TIMESTAMP(6))
//   handler(session, event)      -- the local effect, same connection, same transaction
//   COMMIT
// A duplicate is recognised only by is_already_consumed() on the INSERT's error, and only once
// the rollback is confirmed. Failpoint consumer.before_commit: sleep widens the window before
// COMMIT (for KILL CONNECTION), error fails there.
ApplyOutcome apply_once(MysqlSession& session, const std::string& consumer_name,
                        const ReceivedEvent& event, const EventHandler& handler);

}  // namespace outbox::consumer
