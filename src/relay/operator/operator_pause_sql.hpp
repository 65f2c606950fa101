#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "mysql/mysql_session.hpp"
#include "operator/operator_pauses.hpp"

// The statements around operators' pauses (sql/014_outbox_pause.sql), shared by the relay's
// PauseWatcher and outboxctl's pause commands. Every function runs its statements on `session`
// (autocommit off) and commits what it wrote; SQL errors are thrown as sql::SQLException.
namespace outbox::pause_sql {

inline constexpr const char* kPauseTable = "`outbox_pause`";

// Every pause in force, by kind and name.
std::vector<OperatorPause> select_pauses(MysqlSession& session);

// Wakes the held rows of pauses that ended (no row in outbox_pause holds them any more):
// RETRY with no recheck whose last_error starts with kOperatorHoldPrefix get a recheck of now,
// so the next claim takes them, in order, as any RETRY row. Reads the held rows in event_id
// order along idx_outbox_due (status, next_attempt_at NULL, event_id) and wakes them in chunks,
// one transaction each: rows still held for a pause in force are read but not written, and a
// long list of them holds no lock for long. Returns how many woke. `outbox_table` is quoted.
size_t wake_ended(MysqlSession& session, const std::string& outbox_table);

// Rows held for pauses, for outboxctl: held for `prefix` (held_prefix()).
struct HeldRows {
  long long events = 0;
  long long oldest_age_us = -1;  // -1: none
};
HeldRows count_held(MysqlSession& session, const std::string& outbox_table,
                    const std::string& prefix);
// Held rows that no pause in force holds (a resume that stopped before waking them all, or a
// pause row deleted by hand): a relay's start or `outboxctl resume` wakes them.
long long count_held_for_ended(MysqlSession& session, const std::string& outbox_table);

}  // namespace outbox::pause_sql
