#include "config/duration.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <limits>
#include <utility>

namespace outbox {
namespace {

struct Unit {
  std::string_view suffix;
  int64_t micros;
};

// Longest suffixes first so "ms" is not read as "m" + "s".
// Days are for retention windows ("7d"), which are naturally counted in days.
constexpr std::array<Unit, 6> kDurationUnits{{
    {"us", 1},
    {"ms", 1'000},
    {"s", 1'000'000},
    {"m", 60'000'000},
    {"h", 3'600'000'000},
    {"d", 86'400'000'000},
}};

}  // namespace

std::optional<Micros> parse_duration(std::string_view text) {
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9')
    ++digits;
  if (digits == 0 || digits > 12) return std::nullopt;
  int64_t number = 0;
  std::from_chars(text.data(), text.data() + digits, number);
  const std::string_view suffix = text.substr(digits);
  for (const Unit& unit : kDurationUnits) {
    if (suffix != unit.suffix) continue;
    // "999999999999d" would overflow: no duration anyone means is that long.
    if (number > std::numeric_limits<int64_t>::max() / unit.micros) return std::nullopt;
    return Micros(number * unit.micros);
  }
  return std::nullopt;
}

std::string format_duration(Micros value) {
  const int64_t us = value.count();
  if (us == 0) return "0s";
  // The largest unit that divides the value; kDurationUnits runs from the smallest, and "us"
  // divides every value. (A forward loop: clang 14 cannot compile std::views::reverse over
  // libstdc++ 12's std::array, and that broke clang-tidy and the fuzz build.)
  const Unit* largest = &kDurationUnits.front();
  for (const Unit& unit : kDurationUnits) {
    if (us % unit.micros == 0) largest = &unit;
  }
  return std::to_string(us / largest->micros) + std::string(largest->suffix);
}

std::string format_pause(Micros value) {
  const auto ms =
      std::max<int64_t>(1, std::chrono::duration_cast<std::chrono::milliseconds>(value).count());
  return format_duration(std::chrono::milliseconds(ms));
}

}  // namespace outbox
