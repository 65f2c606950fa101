#include "worker_log.hpp"

namespace outbox {
namespace {

// Ids named individually in one summary line, before "and N more".
constexpr size_t kIdsPerLogLine = 10;

}  // namespace

std::string some_ids(const std::vector<std::string>& ids) {
  std::string out;
  for (size_t i = 0; i < ids.size() && i < kIdsPerLogLine; ++i)
    out += (i ? ", " : "") + ids[i];
  if (ids.size() > kIdsPerLogLine)
    out += " and " + std::to_string(ids.size() - kIdsPerLogLine) + " more";
  return out;
}

const char* describe(DeliveryStatus status) {
  switch (status) {
    case DeliveryStatus::kDelivered:
      return "delivered";
    case DeliveryStatus::kNotDelivered:
      return "not delivered";
    case DeliveryStatus::kMaybeDelivered:
      return "maybe delivered";
  }
  return "?";
}

}  // namespace outbox
