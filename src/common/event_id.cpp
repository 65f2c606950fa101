#include "event_id.hpp"

namespace outbox {

std::optional<std::string> event_id_problem(std::string_view text) {
  if (text.empty()) return "is empty";
  if (text.size() > kMaxEventIdLength) {
    return "is " + std::to_string(text.size()) + " bytes long (at most " +
           std::to_string(kMaxEventIdLength) + ")";
  }
  for (size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte <= 0x20 || byte >= 0x7f) {
      return "has byte 0x" + std::string(1, "0123456789abcdef"[byte >> 4]) +
             std::string(1, "0123456789abcdef"[byte & 0xf]) + " at position " +
             std::to_string(i + 1) + " (only printable ASCII without spaces is allowed)";
    }
  }
  return std::nullopt;
}

}  // namespace outbox
