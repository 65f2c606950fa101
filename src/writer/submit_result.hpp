#pragma once

#include <string>
#include <variant>

#include "order_submission.hpp"

namespace outbox::writer {

// The four answers of OrderWriter::submit(). They are distinct types in a variant, with no
// ok() and no bool conversion, so a caller cannot fold "the outcome is unknown" into "it
// failed, try again": it has to name the alternative it handles (std::visit, get_if).

// The order row and its outbox_event row (PENDING) committed together, now.
struct Committed {
  AcceptedOrder order;
};

// (tenant_id, request_id) was accepted before (uq_orders_tenant_request): nothing new was
// written. `stored` holds the ids of the earlier acceptance, which the caller uses from now on
// (they differ from the submitted ones when the earlier attempt used other ids).
struct AlreadyAccepted {
  AcceptedOrder stored;
};

// Certainly not committed: the transaction failed before COMMIT and the server confirmed the
// rollback, or it never began (no connection, invalid input). Resubmitting with the same ids
// is safe; whether it can succeed depends on `error_code` (a lock wait timeout may pass, a
// constraint violation will not).
struct RolledBack {
  std::string error;
  int error_code = 0;  // the MySQL error code, 0 when the failure was not a server's
};

// COMMIT was sent and did not answer (or a rollback did not answer): the server may have
// committed. This is NOT a failure and must never be replayed as one. Reconcile:
// OrderWriter::reconcile(tenant_id, request_id) on the primary; if it finds the order, use the
// stored ids; only if it finds nothing, submit again with the very same ids (the unique keys
// turn a late-landing first commit into AlreadyAccepted).
struct CommitOutcomeUnknown {
  std::string error;
};

using SubmitResult = std::variant<Committed, AlreadyAccepted, RolledBack, CommitOutcomeUnknown>;

// One line for logs: "committed order 42 (event e-42)", "outcome unknown: ...".
std::string describe(const SubmitResult& result);

}  // namespace outbox::writer
