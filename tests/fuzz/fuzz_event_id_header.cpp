// The consumer's event_id header parser (src/consumer/event_id_header.hpp) on arbitrary header
// lists: an id is returned only when exactly one event_id header carries a valid id, and every
// refusal says why (the dead letter records it).
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
  int named_event_id = 0;
  while (input.remaining_bytes() > 0 && headers.size() < 16) {
    std::string name = input.ConsumeBool() ? std::string(outbox::consumer::kEventIdHeader)
                                           : input.ConsumeRandomLengthString(16);
    if (name == outbox::consumer::kEventIdHeader) ++named_event_id;
    headers.emplace_back(std::move(name), input.ConsumeRandomLengthString(48));
  }
  const outbox::Outcome<std::string> id = outbox::consumer::event_id_from_headers(headers);
  if (!id) {
    if (id.error().message.empty()) std::abort();
    return 0;
  }
  if (named_event_id != 1) std::abort();
  if (id.value().empty() || id.value().size() > outbox::kMaxEventIdLength) std::abort();
  if (outbox::event_id_problem(id.value())) std::abort();
  for (const auto& [name, value] : headers) {
    if (name == outbox::consumer::kEventIdHeader && value != id.value()) std::abort();
  }
  return 0;
}
