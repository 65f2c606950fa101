#pragma once

#include <cstdint>
#include <string>

#include "trace_context.hpp"

namespace outbox::writer {

// One new row of outbox_event, as the seed's writers insert it (status PENDING, created_at by
// the database clock). The relay publishes it with key = aggregate_id, value = payload and
// the headers event_id, event_type, event_version, aggregate_type (and traceparent /
// tracestate when the event carries a trace context).
struct OutboxEventRecord {
  std::string event_id;  // stable, chosen before the transaction: 1..36 printable ASCII
  std::string aggregate_type;
  std::string aggregate_id;
  std::string event_type;
  int64_t event_version = 1;
  std::string payload;  // JSON (or bytes, when the column was altered to a binary type)
  // The W3C trace context of the request that wrote the event (empty: none). Stored in the
  // traceparent / tracestate columns of sql/012; a malformed value is refused before any
  // statement runs.
  TraceContext trace;
};

}  // namespace outbox::writer
