#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "mysql/mysql_session.hpp"
#include "publish/topic_router.hpp"
#include "replay_request.hpp"

// How many PUBLISHED events of a replay window retention already deleted: read from
// outbox_purge_log (sql/015), which `outboxctl purge` fills per hour of created_at and per
// (aggregate_type, event_type). An hour the window covers only in part counts apart: its
// events may lie inside the window or outside it.
namespace outbox::ctl {

struct PurgedInWindow {
  bool known = false;    // false: no outbox_purge_log (sql/015 not applied, or no grant)
  int64_t inside = 0;    // created in hours that lie wholly inside the window
  int64_t at_edges = 0;  // created in the window's first or last hour, which it covers in part
};

// The filter is the replay's: events routed to `topic`, or of `aggregate_type` (byte for byte),
// or every event when both are unset. Throws sql::SQLException for anything but a missing table.
PurgedInWindow purged_in_window(MysqlSession& session, const ReplayWindow& window,
                                const TopicRouter& router, const std::optional<std::string>& topic,
                                const std::optional<std::string>& aggregate_type);

}  // namespace outbox::ctl
