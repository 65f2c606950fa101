#pragma once

#include <memory>
#include <optional>
#include <string>

#include "mysql/mysql_endpoint.hpp"
#include "mysql/mysql_session.hpp"
#include "mysql/sql_identifier.hpp"
#include "order_submission.hpp"
#include "outcome.hpp"
#include "submit_result.hpp"

namespace outbox::writer {

// The seed's order writer: an order row and its ORDER_ACCEPTED outbox_event row (PENDING)
// in one local transaction on one connection, and the reconcile step that follows a commit
// whose outcome is unknown.
//
// One writer holds one session (reopened after it is lost) and is not thread-safe: use one
// per thread. Call init_mysql_driver() on the main thread first, and hold a MysqlThreadScope
// on every thread that uses a writer.
class OrderWriter {
 public:
  // `primary` must be the primary server, never a replica: reconcile() reads there so that
  // replication lag cannot make a committed order look absent.
  // `outbox_table`: where the events go (the relay's mysql.table).
  explicit OrderWriter(MysqlEndpoint primary, SqlIdentifier outbox_table = default_outbox_table());
  ~OrderWriter();
  OrderWriter(const OrderWriter&) = delete;
  OrderWriter& operator=(const OrderWriter&) = delete;

  // INSERT orders, INSERT outbox_event, COMMIT. Exactly one of:
  //  - Committed;
  //  - AlreadyAccepted: the order insert failed with error 1062 naming
  //    uq_orders_tenant_request or the orders primary key (a resubmission with the same ids
  //    is refused by the primary key first), and a row is stored for (tenant_id, request_id);
  //    no other error counts as a duplicate;
  //  - RolledBack: a statement failed and the server confirmed the rollback;
  //  - CommitOutcomeUnknown: COMMIT, or the rollback after a failure, threw: reconcile, never
  //    replay (the seed's rule: without a confirmed rollback nothing is certain).
  // Database failures never throw; only what no caller can handle does (out of memory).
  [[nodiscard]] SubmitResult submit(const OrderSubmission& order);

  // The stored order id and acceptance_event_id for (tenant_id, request_id), or nullopt when
  // none is committed. Reads on a fresh session to the primary, never on the session whose
  // commit failed. An error means "could not look": retry it, do not read it as absent.
  [[nodiscard]] Outcome<std::optional<AcceptedOrder>> reconcile(
      int64_t tenant_id, const std::string& request_id) const;

 private:
  SubmitResult submit_on_session(const OrderSubmission& order);
  // Rolls back after a failed statement and decides between RolledBack, AlreadyAccepted
  // (only when `may_be_duplicate` and a row is stored for the request) and, when the rollback
  // is not confirmed, CommitOutcomeUnknown.
  SubmitResult after_failed_statement(const std::string& error, int error_code,
                                      bool may_be_duplicate, const OrderSubmission& order);

  MysqlEndpoint primary_;
  SqlIdentifier outbox_table_;
  std::unique_ptr<MysqlSession> session_;  // null until first use and after it was lost
};

}  // namespace outbox::writer
