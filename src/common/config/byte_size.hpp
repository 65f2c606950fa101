#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace outbox {

// Parses "64MiB", "512KiB", "1GiB", "900KB" (1000-based: KB, MB, GB) or "1000B". A bare number
// is rejected on purpose, as for durations: a unit makes the intent readable.
std::optional<uint64_t> parse_byte_size(std::string_view text);

// The shortest exact spelling: 67108864 -> "64MiB", 1000000 -> "1MB", 1500 -> "1500B".
std::string format_byte_size(uint64_t bytes);

}  // namespace outbox
