#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "outcome.hpp"

namespace outbox::failpoints {

// Named points where fault-injection tests make a process fail exactly inside a window that no
// outside fault (kill -9, KILL CONNECTION, broker errors) can be timed to hit, e.g. "after the
// broker confirmed, before the row is marked".
//
// Compiled in and off. A process arms them only when it starts with BOTH
//   OUTBOX_FAILPOINTS="name=action[,name=action...]"
//   OUTBOX_FAILPOINTS_I_UNDERSTAND=this-process-will-fail-on-purpose
// A process that finds OUTBOX_FAILPOINTS without that exact guard refuses to start, and one
// that arms failpoints logs a warning naming each of them, so they cannot be on unnoticed.
//
// Actions: kill (SIGKILL itself: a crash at that exact point), sleep:MS (widen the window),
// error (the call site reports a failure). "@N" after the action fires it on the Nth hit only
// (1-based), e.g. relay.after_publish_before_mark=kill@3.
inline constexpr const char* kVariable = "OUTBOX_FAILPOINTS";
inline constexpr const char* kGuardVariable = "OUTBOX_FAILPOINTS_I_UNDERSTAND";
inline constexpr const char* kGuardValue = "this-process-will-fail-on-purpose";

// Every failpoint compiled in. configure() rejects any other name: a misspelt name would
// otherwise arm nothing, and a fault-injection run would pass without its fault.
inline constexpr const char* kWriterBeforeCommit = "writer.before_commit";
inline constexpr const char* kRelayAfterPublishBeforeMark = "relay.after_publish_before_mark";
inline constexpr const char* kConsumerBeforeCommit = "consumer.before_commit";
inline constexpr const char* kConsumerAfterCommitBeforeAck = "consumer.after_commit_before_ack";
inline constexpr std::string_view kKnown[] = {kWriterBeforeCommit, kRelayAfterPublishBeforeMark,
                                              kConsumerBeforeCommit, kConsumerAfterCommitBeforeAck};

// Reads the environment once, in main() before any thread starts. The error (unguarded or
// malformed) names the variable; callers exit with EX_CONFIG.
Status configure_from_environment();

// Parses a spec as configure_from_environment() would (for tests of this module).
Status configure(std::string_view spec, bool guarded);

// Each firing logs "FAILPOINT <name> fired: <action>" (warn) before it acts.
// True when the point's action is "error" and it fires now. "kill" does not return; "sleep"
// returns false after sleeping. Costs one relaxed atomic load when nothing is armed.
bool hit(std::string_view name);

// "name=action" of every armed point.
std::vector<std::string> armed();

// Logs "FAILPOINT ARMED: name=action ..." (warn) for each armed point: every program calls it
// once logging is set up, so failpoints are never on unnoticed.
void warn_armed();

}  // namespace outbox::failpoints
