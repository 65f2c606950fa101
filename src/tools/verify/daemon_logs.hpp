#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace outbox::verify {

// What the chain's daemons logged about individual events, read back from their log files
// (text format: "<UTC time> <level> [<program>:<thread>] <message>"). The log lines are part of
// each daemon's documented behaviour; the verifier counts them, it does not trust a summary.

// Microseconds since the epoch of a log line's UTC timestamp; -1 when the line has none.
int64_t log_line_time_us(const std::string& line);

// The consumer handled one delivery of an event (notification-planner at level debug).
enum class HandleOutcome { kApplied, kAlreadyConsumed, kFailed, kDeadLettered };

struct HandleAttempt {
  std::string process;  // which planner process logged it
  int64_t at_us = -1;
  std::string event_id;
  int partition = -1;
  long long offset = -1;
  HandleOutcome outcome = HandleOutcome::kFailed;
  std::string detail;  // the failure ("INSERT INTO consumed_event: MySQL error 1062 ...")
  bool commit_unknown = false;
};

// Every handle attempt in a planner's log: "event <id> at <topic>/<p>@<offset>: applied,
// acknowledged" | "already consumed by ..." | "attempt N failed: ..." | "...dead-letter...".
std::vector<HandleAttempt> planner_attempts(const std::string& log_text,
                                            const std::string& process);

// The relay's account of one event in one claim (outbox-relay at level debug).
enum class RelayEventStep {
  kClaimed,       // "event <id> PUBLISHING: claim <claim>, attempt <n>"
  kDelivered,     // "event <id> delivered to <topic>[<p>]@<offset>, claim <claim>" (after the mark)
  kLeaseLost,     // "event <id>: delivered, but claim <claim> no longer holds its lease ..."
  kNotDelivered,  // "event <id> attempt .. / FAILED / back to PENDING": not confirmed
};

struct RelayEventLine {
  std::string process;
  int64_t at_us = -1;
  RelayEventStep step = RelayEventStep::kClaimed;
  std::string event_id;
  std::string claim;  // empty for kNotDelivered (the line names no claim)
  int partition = -1;
  long long offset = -1;
};

// A claim whose confirmed deliveries could not be marked before its lease ended
// ("claim <claim>: N events confirmed by the broker could not be marked PUBLISHED").
struct AbandonedMark {
  std::string process;
  int64_t at_us = -1;
  std::string claim;
};

struct RelayLog {
  std::vector<RelayEventLine> events;
  std::vector<AbandonedMark> abandoned;
};

RelayLog relay_log_lines(const std::string& log_text, const std::string& process);

}  // namespace outbox::verify
