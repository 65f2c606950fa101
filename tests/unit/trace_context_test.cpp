// W3C trace context as the writer stores it and the consumer reads it: what is a traceparent.
#include <catch2/catch.hpp>

#include "trace_context.hpp"

using outbox::trace_context_problem;
using outbox::trace_id_of;
using outbox::TraceContext;
using outbox::traceparent_problem;
using outbox::tracestate_problem;

namespace {
// The specification's example.
const std::string kValid = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
}  // namespace

TEST_CASE("a traceparent is version-traceid-parentid-flags in lower-case hex", "[trace]") {
  CHECK_FALSE(traceparent_problem(kValid));
  CHECK_FALSE(traceparent_problem("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00"));
  // A later version may append fields after a '-'.
  CHECK_FALSE(traceparent_problem("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-ab"));
  CHECK(traceparent_problem("") ==
        "\"\" is not version-traceid-parentid-flags (00-<32 hex>-<16 hex>-<2 hex>)");
  CHECK(traceparent_problem(kValid + "-extra") ==
        "\"" + kValid +
            "-extra\" is not version-traceid-parentid-flags (00-<32 hex>-<16 hex>-<2 "
            "hex>)");
  CHECK(traceparent_problem("ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01") ==
        "\"ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\" has an invalid version "
        "\"ff\" (two lower-case hex digits, not ff)");
  CHECK(traceparent_problem("00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01") ==
        "\"00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01\" has an invalid trace id (32 "
        "lower-case hex digits, not all zero)");
  CHECK(traceparent_problem("00-00000000000000000000000000000000-00f067aa0ba902b7-01") ==
        "\"00-00000000000000000000000000000000-00f067aa0ba902b7-01\" has an invalid trace id (32 "
        "lower-case hex digits, not all zero)");
  CHECK(traceparent_problem("00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01") ==
        "\"00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01\" has an invalid parent id (16 "
        "lower-case hex digits, not all zero)");
  CHECK(traceparent_problem("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0x") ==
        "\"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0x\" has invalid flags (two "
        "lower-case hex digits)");
  CHECK(traceparent_problem(std::string(300, 'a')) == "is 300 bytes long (at most 256)");
}

TEST_CASE("a trace context is stored whole or not at all", "[trace]") {
  CHECK_FALSE(trace_context_problem(TraceContext{}));
  CHECK_FALSE(trace_context_problem(TraceContext{kValid, ""}));
  CHECK_FALSE(
      trace_context_problem(TraceContext{kValid, "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE"}));
  CHECK(trace_context_problem(TraceContext{"", "rojo=1"}) ==
        "tracestate is set without a traceparent");
  CHECK(trace_context_problem(TraceContext{"00-abc", ""}) ==
        "traceparent \"00-abc\" is not version-traceid-parentid-flags (00-<32 hex>-<16 hex>-<2 "
        "hex>)");
  CHECK(trace_context_problem(TraceContext{kValid, "rojo=\n"}) ==
        "tracestate has a byte outside printable ASCII at position 6");
  CHECK(tracestate_problem(std::string(513, 'a')) == "is 513 bytes long (at most 512)");
}

TEST_CASE("the trace id is the traceparent's second field", "[trace]") {
  CHECK(trace_id_of(kValid) == "4bf92f3577b34da6a3ce929d0e0e4736");
  CHECK_FALSE(trace_id_of("00-4bf92f3577b34da6a3ce929d0e0e4736"));
}
