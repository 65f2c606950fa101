#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace outbox {

// An event's stable identity as every table stores it: CHAR(36) CHARACTER SET ascii
// (outbox_event, consumed_event, notification_job, orders.acceptance_event_id).
inline constexpr size_t kMaxEventIdLength = 36;

// Why `text` cannot be an event id (empty, longer than 36 bytes, or a byte outside printable
// ASCII: a space, a control character, UTF-8), or nullopt when it can. A value the column
// would truncate or reject must be refused before it reaches the database: a truncated id is
// a different event.
std::optional<std::string> event_id_problem(std::string_view text);

}  // namespace outbox
