#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace outbox {

// W3C Trace Context (https://www.w3.org/TR/trace-context/) as the outbox carries it: the
// writer stores the caller's traceparent / tracestate with the event, the relay sends them as
// the headers of the same names, the consumer hands them to its handler.

// outbox_event.traceparent VARCHAR(256), outbox_event.tracestate VARCHAR(512) (sql/012).
inline constexpr size_t kMaxTraceparentLength = 256;
inline constexpr size_t kMaxTracestateLength = 512;

// Why `text` is not a traceparent, or nullopt when it is: "00-<32 hex trace id>-<16 hex
// parent id>-<2 hex flags>" in lower case, neither id all zeros; a later version (not ff) may
// add fields after a '-', as the specification allows. A malformed value is refused before it
// is stored: downstream it would only break the trace.
std::optional<std::string> traceparent_problem(std::string_view text);

// Why `text` is not a tracestate: longer than 512 bytes, or a byte outside printable ASCII
// (its list members are key=value pairs of printable ASCII separated by commas).
std::optional<std::string> tracestate_problem(std::string_view text);

// What a writer stores with an event; both empty: no trace context (the columns stay NULL).
struct TraceContext {
  std::string traceparent;
  std::string tracestate;  // only with a traceparent, as the specification says

  bool empty() const { return traceparent.empty() && tracestate.empty(); }
};

// Why `trace` cannot be stored ("traceparent ...", "tracestate ..."), or nullopt. Empty is
// fine; a tracestate without a traceparent is not.
std::optional<std::string> trace_context_problem(const TraceContext& trace);

// The trace id (32 hex digits) of a valid traceparent, or nullopt.
std::optional<std::string> trace_id_of(std::string_view traceparent);

}  // namespace outbox
