#include "trace_context.hpp"

#include <algorithm>

namespace outbox {
namespace {

// version "-" trace-id "-" parent-id "-" trace-flags
constexpr size_t kVersion00Length = 55;
constexpr size_t kTraceIdAt = 3;
constexpr size_t kTraceIdLength = 32;
constexpr size_t kParentIdAt = 36;
constexpr size_t kParentIdLength = 16;
constexpr size_t kFlagsAt = 53;

bool lower_hex(std::string_view text) {
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

bool all_zeros(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) { return c == '0'; });
}

}  // namespace

std::optional<std::string> traceparent_problem(std::string_view text) {
  std::string shown = "\"";  // appended, not `"\"" + ...`: GCC 12's false -Wrestrict
  shown += text.substr(0, 64);
  shown += '"';
  if (text.size() > kMaxTraceparentLength) {
    return "is " + std::to_string(text.size()) + " bytes long (at most " +
           std::to_string(kMaxTraceparentLength) + ")";
  }
  if (text.size() < kVersion00Length || text[2] != '-' || text[kParentIdAt - 1] != '-' ||
      text[kFlagsAt - 1] != '-') {
    return shown + " is not version-traceid-parentid-flags (00-<32 hex>-<16 hex>-<2 hex>)";
  }
  const std::string_view version = text.substr(0, 2);
  if (!lower_hex(version) || version == "ff") {
    return shown + " has an invalid version \"" + std::string(version) +
           "\" (two lower-case hex digits, not ff)";
  }
  if (version == "00" ? text.size() != kVersion00Length
                      : text.size() > kVersion00Length && text[kVersion00Length] != '-') {
    return shown + " is not version-traceid-parentid-flags (00-<32 hex>-<16 hex>-<2 hex>)";
  }
  const std::string_view trace_id = text.substr(kTraceIdAt, kTraceIdLength);
  const std::string_view parent_id = text.substr(kParentIdAt, kParentIdLength);
  const std::string_view flags = text.substr(kFlagsAt, 2);
  if (!lower_hex(trace_id) || all_zeros(trace_id)) {
    return shown + " has an invalid trace id (32 lower-case hex digits, not all zero)";
  }
  if (!lower_hex(parent_id) || all_zeros(parent_id)) {
    return shown + " has an invalid parent id (16 lower-case hex digits, not all zero)";
  }
  if (!lower_hex(flags)) return shown + " has invalid flags (two lower-case hex digits)";
  return std::nullopt;
}

std::optional<std::string> tracestate_problem(std::string_view text) {
  if (text.size() > kMaxTracestateLength) {
    return "is " + std::to_string(text.size()) + " bytes long (at most " +
           std::to_string(kMaxTracestateLength) + ")";
  }
  for (size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte < 0x20 || byte >= 0x7f) {
      return "has a byte outside printable ASCII at position " + std::to_string(i + 1);
    }
  }
  return std::nullopt;
}

std::optional<std::string> trace_context_problem(const TraceContext& trace) {
  if (trace.empty()) return std::nullopt;
  if (trace.traceparent.empty()) return "tracestate is set without a traceparent";
  if (const auto problem = traceparent_problem(trace.traceparent)) return "traceparent " + *problem;
  if (const auto problem = tracestate_problem(trace.tracestate)) return "tracestate " + *problem;
  return std::nullopt;
}

std::optional<std::string> trace_id_of(std::string_view traceparent) {
  if (traceparent_problem(traceparent)) return std::nullopt;
  return std::string(traceparent.substr(kTraceIdAt, kTraceIdLength));
}

}  // namespace outbox
