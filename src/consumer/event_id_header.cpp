#include "event_id_header.hpp"

#include "event_id.hpp"

namespace outbox::consumer {
namespace {

// The one value of header `name`, nullptr when absent; two of them make the message's identity
// ambiguous (deduplicating by either could apply it twice or drop a different event).
Outcome<const std::string*> only_header(
    const std::vector<std::pair<std::string, std::string>>& headers, const std::string& name) {
  const std::string* value = nullptr;
  int found = 0;
  for (const auto& [header_name, header_value] : headers) {
    if (header_name != name) continue;
    ++found;
    value = &header_value;
  }
  if (found > 1) return Error{std::to_string(found) + " " + name + " headers"};
  return value;
}

}  // namespace

Outcome<std::string> event_id_from_headers(
    const std::vector<std::pair<std::string, std::string>>& headers) {
  const Outcome<const std::string*> event_id = only_header(headers, kEventIdHeader);
  if (!event_id) return event_id.error();
  const Outcome<const std::string*> ce_id = only_header(headers, kCloudEventsIdHeader);
  if (!ce_id) return ce_id.error();
  if (event_id.value() == nullptr && ce_id.value() == nullptr) {
    return Error{std::string("no ") + kEventIdHeader + " header (nor " + kCloudEventsIdHeader +
                 ")"};
  }
  if (event_id.value() != nullptr && ce_id.value() != nullptr &&
      *event_id.value() != *ce_id.value()) {
    return Error{std::string(kEventIdHeader) + " and " + kCloudEventsIdHeader +
                 " headers name different events"};
  }
  const char* name = event_id.value() != nullptr ? kEventIdHeader : kCloudEventsIdHeader;
  const std::string& value = event_id.value() != nullptr ? *event_id.value() : *ce_id.value();
  if (const auto problem = event_id_problem(value))
    return Error{std::string(name) + " header " + *problem};
  return value;
}

}  // namespace outbox::consumer
