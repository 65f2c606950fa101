#pragma once

#include <cstdint>
#include <string>

#include "trace_context.hpp"

namespace outbox::writer {

// One order as the caller hands it to submit(). Every id is chosen by the caller before the
// transaction and reused, unchanged, for every retry of the same request: the writer
// generates nothing, so a retry can never turn into a second order or a second event.
struct OrderSubmission {
  int64_t tenant_id = 0;
  // The entry idempotency key: unique per tenant (uq_orders_tenant_request).
  std::string request_id;
  int64_t order_id = 0;
  // The ORDER_ACCEPTED event's stable id (outbox_event.event_id and
  // orders.acceptance_event_id): 1..36 printable ASCII characters, e.g. a UUID.
  std::string event_id;
  int64_t version = 1;
  // The event payload: a JSON snapshot of the accepted facts (order id, version, ...), never a
  // live object or a "current value".
  std::string payload;
  // The W3C trace context of the request (empty: none), stored with the event and sent by the
  // relay as the traceparent / tracestate headers. A malformed one is refused before the
  // transaction begins (RolledBack, "not started: traceparent ...").
  TraceContext trace;
};

// What the database holds for one (tenant_id, request_id): the order and the id of the event
// that announced its acceptance.
struct AcceptedOrder {
  int64_t order_id = 0;
  std::string acceptance_event_id;

  bool operator==(const AcceptedOrder&) const = default;
};

}  // namespace outbox::writer
