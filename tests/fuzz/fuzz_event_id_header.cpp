// The consumer's event_id header parser (src/consumer/event_id_header.hpp) on arbitrary header
// lists: an id is returned only when exactly one event_id header, or exactly one CloudEvents
// ce_id header, or one of each with the same value, carries a valid id; every refusal says why
// (the dead letter records it).
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "event_id.hpp"
#include "event_id_header.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider input(data, size);
  std::vector<std::pair<std::string, std::string>> headers;
  const auto is_id_header = [](const std::string& name) {
    return name == outbox::consumer::kEventIdHeader ||
           name == outbox::consumer::kCloudEventsIdHeader;
  };
  int named_event_id = 0;
  int named_ce_id = 0;
  while (input.remaining_bytes() > 0 && headers.size() < 16) {
    std::string name;
    switch (input.ConsumeIntegralInRange<int>(0, 2)) {
      case 0:
        name = outbox::consumer::kEventIdHeader;
        break;
      case 1:
        name = outbox::consumer::kCloudEventsIdHeader;
        break;
      default:
        name = input.ConsumeRandomLengthString(16);
    }
    if (name == outbox::consumer::kEventIdHeader) ++named_event_id;
    if (name == outbox::consumer::kCloudEventsIdHeader) ++named_ce_id;
    headers.emplace_back(std::move(name), input.ConsumeRandomLengthString(48));
  }
  const outbox::Outcome<std::string> id = outbox::consumer::event_id_from_headers(headers);
  if (!id) {
    if (id.error().message.empty()) std::abort();
    return 0;
  }
  if (named_event_id > 1 || named_ce_id > 1 || named_event_id + named_ce_id == 0) std::abort();
  if (id.value().empty() || id.value().size() > outbox::kMaxEventIdLength) std::abort();
  if (outbox::event_id_problem(id.value())) std::abort();
  for (const auto& [name, value] : headers) {
    if (is_id_header(name) && value != id.value()) std::abort();
  }
  return 0;
}
