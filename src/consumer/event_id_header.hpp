#pragma once

#include <string>
#include <utility>
#include <vector>

#include "outcome.hpp"

namespace outbox::consumer {

// The headers that carry an event's id: outbox-relay's own profile (and any producer of this
// project's messages) sends event_id; kafka.profile cloudevents sends CloudEvents' id
// attribute, ce_id in the Kafka binding's binary mode.
inline constexpr const char* kEventIdHeader = "event_id";
inline constexpr const char* kCloudEventsIdHeader = "ce_id";

// The event id a message carries: exactly one event_id header, or exactly one ce_id header, or
// one of each with the same value, whose value fits the event_id columns (1..36 printable
// ASCII). The error is the reason a dead letter records, e.g. "no event_id header (nor
// ce_id)", "2 event_id headers", "event_id header is empty".
Outcome<std::string> event_id_from_headers(
    const std::vector<std::pair<std::string, std::string>>& headers);

}  // namespace outbox::consumer
