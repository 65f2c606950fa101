#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace outbox {

using Micros = std::chrono::microseconds;

// Parses "250us", "50ms", "30s", "5m", "1h", "7d". A bare number is rejected on purpose: "30"
// could mean seconds or milliseconds and the wrong guess is a silent outage.
std::optional<Micros> parse_duration(std::string_view text);

// The shortest exact spelling, e.g. 1500ms -> "1500ms", 60s -> "1m", 168h -> "7d".
std::string format_duration(Micros value);

// A retry pause for log lines: whole milliseconds, at least 1ms ("retrying in 850ms").
std::string format_pause(Micros value);

}  // namespace outbox
