#include "config/byte_size.hpp"

#include <array>
#include <charconv>
#include <utility>

namespace outbox {
namespace {

// Largest first, so the formatter finds the largest exact unit.
constexpr std::array<std::pair<std::string_view, uint64_t>, 7> kByteUnits{{
    {"GiB", uint64_t{1} << 30},
    {"GB", 1000ULL * 1000 * 1000},
    {"MiB", uint64_t{1} << 20},
    {"MB", 1000ULL * 1000},
    {"KiB", uint64_t{1} << 10},
    {"KB", 1000},
    {"B", 1},
}};

}  // namespace

std::optional<uint64_t> parse_byte_size(std::string_view text) {
  uint64_t number = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (ec != std::errc() || end == text.data()) return std::nullopt;
  const std::string_view unit(end, static_cast<size_t>(text.data() + text.size() - end));
  for (const auto& [name, factor] : kByteUnits) {
    if (unit != name) continue;
    if (number > UINT64_MAX / factor) return std::nullopt;
    return number * factor;
  }
  return std::nullopt;
}

std::string format_byte_size(uint64_t bytes) {
  for (const auto& [name, factor] : kByteUnits) {
    if (bytes != 0 && bytes % factor == 0)
      return std::to_string(bytes / factor) + std::string(name);
  }
  return std::to_string(bytes) + "B";
}

}  // namespace outbox
