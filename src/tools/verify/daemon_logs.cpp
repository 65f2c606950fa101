#include "daemon_logs.hpp"

#include <time.h>  // NOLINT(modernize-deprecated-headers): timegm (BSD/GNU), not in <ctime>

#include <algorithm>
#include <charconv>
#include <ctime>
#include <iomanip>
#include <sstream>

namespace outbox::verify {
namespace {

// The message part of a log line: what follows "] ".
std::string_view message_of(std::string_view line) {
  const size_t end = line.find("] ");
  return end == std::string_view::npos ? std::string_view() : line.substr(end + 2);
}

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

template <typename Number>
bool parse_number(std::string_view text, Number& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

// "<topic>/<p>@<offset>" (the consumer's position) into partition and offset.
bool parse_position(std::string_view text, int& partition, long long& offset) {
  const size_t slash = text.rfind('/');
  const size_t at = text.rfind('@');
  if (slash == std::string_view::npos || at == std::string_view::npos || at < slash) return false;
  return parse_number(text.substr(slash + 1, at - slash - 1), partition) &&
         parse_number(text.substr(at + 1), offset);
}

template <typename Fn>
void for_each_line(const std::string& text, Fn fn) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    fn(line);
}

}  // namespace

int64_t log_line_time_us(const std::string& line) {
  // 2026-11-29T15:51:00.123456Z
  if (line.size() < 27 || line[10] != 'T' || line[26] != 'Z') return -1;
  std::tm parts{};
  std::istringstream in(line.substr(0, 19));
  in >> std::get_time(&parts, "%Y-%m-%dT%H:%M:%S");
  long micros = 0;
  if (in.fail() || !parse_number(std::string_view(line).substr(20, 6), micros)) return -1;
  return static_cast<int64_t>(timegm(&parts)) * 1'000'000 + micros;
}

std::vector<HandleAttempt> planner_attempts(const std::string& log_text,
                                            const std::string& process) {
  std::vector<HandleAttempt> attempts;
  for_each_line(log_text, [&](const std::string& line) {
    const std::string_view message = message_of(line);
    if (!starts_with(message, "event ")) return;
    const size_t at = message.find(" at ");
    const size_t colon = message.find(": ", at == std::string_view::npos ? 0 : at);
    if (at == std::string_view::npos || colon == std::string_view::npos) return;
    HandleAttempt attempt;
    attempt.process = process;
    attempt.at_us = log_line_time_us(line);
    attempt.event_id = std::string(message.substr(6, at - 6));
    // The position ends at the colon, or at the " (trace <id>)" of an event with a trace.
    const size_t position_end = std::min(colon, message.find(' ', at + 4));
    if (!parse_position(message.substr(at + 4, position_end - at - 4), attempt.partition,
                        attempt.offset)) {
      return;
    }
    const std::string_view rest = message.substr(colon + 2);
    if (starts_with(rest, "applied, acknowledged")) {
      attempt.outcome = HandleOutcome::kApplied;
    } else if (starts_with(rest, "already consumed by ")) {
      attempt.outcome = HandleOutcome::kAlreadyConsumed;
    } else if (starts_with(rest, "attempt ")) {
      attempt.outcome = HandleOutcome::kFailed;
      const size_t failed = rest.find(" failed: ");
      const size_t end = rest.rfind("; not acknowledged");
      if (failed != std::string_view::npos && end != std::string_view::npos && end > failed) {
        attempt.detail = std::string(rest.substr(failed + 9, end - failed - 9));
      }
      attempt.commit_unknown = rest.find("(outcome unknown") != std::string_view::npos;
    } else if (rest.find("sent to dead-letter topic") != std::string_view::npos) {
      attempt.outcome = HandleOutcome::kDeadLettered;
      attempt.detail = std::string(rest);
    } else {
      return;
    }
    attempts.push_back(std::move(attempt));
  });
  return attempts;
}

RelayLog relay_log_lines(const std::string& log_text, const std::string& process) {
  RelayLog log;
  for_each_line(log_text, [&](const std::string& line) {
    const std::string_view message = message_of(line);
    RelayEventLine entry;
    entry.process = process;
    if (starts_with(message, "worker ")) {
      // "worker W: claim C: N events confirmed by the broker could not be marked PUBLISHED"
      const size_t claim = message.find(": claim ");
      const size_t end = claim == std::string_view::npos ? claim : message.find(": ", claim + 8);
      if (end != std::string_view::npos &&
          message.find("confirmed by the broker could not be marked PUBLISHED", end) !=
              std::string_view::npos) {
        log.abandoned.push_back(
            AbandonedMark{process, log_line_time_us(line),
                          std::string(message.substr(claim + 8, end - claim - 8))});
      }
      return;
    }
    if (!starts_with(message, "event ")) return;
    const std::string_view rest = message.substr(6);
    const size_t space = rest.find_first_of(" :");
    if (space == std::string_view::npos) return;
    entry.event_id = std::string(rest.substr(0, space));
    const std::string_view after = rest.substr(space);
    if (starts_with(after, " PUBLISHING: claim ")) {
      const size_t comma = after.find(',');
      entry.step = RelayEventStep::kClaimed;
      entry.claim = std::string(after.substr(19, comma - 19));
    } else if (starts_with(after, " delivered to ")) {
      // " delivered to <topic>[<p>]@<offset>, claim <claim>"
      const size_t open = after.find('[');
      const size_t close = after.find("]@");
      const size_t comma = after.find(", claim ");
      if (open == std::string_view::npos || close == std::string_view::npos ||
          comma == std::string_view::npos ||
          !parse_number(after.substr(open + 1, close - open - 1), entry.partition) ||
          !parse_number(after.substr(close + 2, comma - close - 2), entry.offset)) {
        return;
      }
      entry.step = RelayEventStep::kDelivered;
      entry.claim = std::string(after.substr(comma + 8));
    } else if (starts_with(after, ": delivered, but claim ")) {
      const size_t end = after.find(' ', 23);
      entry.step = RelayEventStep::kLeaseLost;
      entry.claim = std::string(after.substr(23, end - 23));
    } else if (starts_with(after, " attempt ") || starts_with(after, " FAILED") ||
               after.find("back to PENDING, no attempt counted") != std::string_view::npos ||
               // Failed the cluster's way on a paused partition (paused_partitions.hpp): like a
               // release, a delivery the cluster did not confirm that may still be stored.
               after.find("held for its paused partition, no attempt counted") !=
                   std::string_view::npos) {
      entry.step = RelayEventStep::kNotDelivered;
    } else {
      return;
    }
    entry.at_us = log_line_time_us(line);
    log.events.push_back(std::move(entry));
  });
  return log;
}

}  // namespace outbox::verify
