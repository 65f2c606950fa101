#pragma once

#include <string>
#include <utility>
#include <vector>

#include "outcome.hpp"

namespace outbox::consumer {

inline constexpr const char* kEventIdHeader = "event_id";

// The event id a message carries: exactly one event_id header whose value fits the event_id
// columns (1..36 printable ASCII). The error is the reason a dead letter records, e.g.
// "no event_id header", "2 event_id headers", "event_id header is empty".
Outcome<std::string> event_id_from_headers(
    const std::vector<std::pair<std::string, std::string>>& headers);

}  // namespace outbox::consumer
