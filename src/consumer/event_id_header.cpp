#include "event_id_header.hpp"

#include "event_id.hpp"

namespace outbox::consumer {

Outcome<std::string> event_id_from_headers(
    const std::vector<std::pair<std::string, std::string>>& headers) {
  const std::string* value = nullptr;
  int found = 0;
  for (const auto& [name, header_value] : headers) {
    if (name != kEventIdHeader) continue;
    ++found;
    value = &header_value;
  }
  if (found == 0) return Error{"no event_id header"};
  // Two ids make the message's identity ambiguous: deduplicating by either could apply it twice
  // or drop a different event.
  if (found > 1) return Error{std::to_string(found) + " event_id headers"};
  if (const auto problem = event_id_problem(*value)) return Error{"event_id header " + *problem};
  return *value;
}

}  // namespace outbox::consumer
