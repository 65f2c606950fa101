#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mysql/mysql_session.hpp"
#include "outcome.hpp"

// What `outboxctl replay` was asked for: the window, the filter, the pace.
namespace outbox::ctl {

// The replay's defaults. A replay shares the brokers and the primary with the live flow: 1,000
// events a second is a small share of what one relay publishes (several thousand a second on a
// two-core machine) and still replays 3.6 million events an hour.
inline constexpr int64_t kDefaultReplayRate = 1000;
// Rows read per statement: one short read along idx_outbox_pending, and the most payloads held
// in memory at once (plus the rows that share the last one's created_at).
inline constexpr int kDefaultReplayBatch = 500;
inline constexpr int kMaxReplayBatch = 10000;

struct ReplayRequest {
  // As the operator wrote them, resolved by resolve_window().
  std::string since_text;
  std::optional<std::string> until_text;
  std::optional<std::string> topic;           // --topic: the topic the relay routes to
  std::optional<std::string> aggregate_type;  // --aggregate-type: byte for byte
  bool dry_run = false;
  int64_t rate = kDefaultReplayRate;  // events a second; 0: no limit
  int batch_size = kDefaultReplayBatch;
};

// A usage problem (exit 64) or the request.
struct ParsedReplay {
  std::optional<ReplayRequest> request;
  std::string problem;
};

ParsedReplay parse_replay_args(const std::vector<std::string>& args);

// The window on the database clock, as keys MySQL compares exactly with created_at
// ("2026-12-06 10:00:00.000000", UTC like every session of the project): [since, until).
struct ReplayWindow {
  std::string since;
  std::string until;
};

// A time is an absolute UTC time (2026-12-06, 2026-12-06 10:00, 2026-12-06T10:00:00.5Z) or a
// duration before the database's now (90m, 2h, 7d). --until defaults to the database's now when
// the replay starts, so rows committed during the replay are not chased. The error names the
// flag and what is wrong with it.
Outcome<ReplayWindow> resolve_window(MysqlSession& session, const ReplayRequest& request);

// "2026-12-06 10:00:00.000000" as "2026-12-06T10:00:00.000000Z".
std::string iso_utc(std::string key_time);

}  // namespace outbox::ctl
