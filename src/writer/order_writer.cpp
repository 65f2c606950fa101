#include "order_writer.hpp"

#include <cppconn/exception.h>

#include "append_event.hpp"
#include "event_id.hpp"
#include "failpoint.hpp"
#include "mysql/duplicate_key.hpp"
#include "mysql/mysql_error.hpp"

namespace outbox::writer {
namespace {

constexpr size_t kMaxRequestIdLength = 128;  // orders.request_id VARCHAR(128)

constexpr const char* kInsertOrder =
    "INSERT INTO orders (id, tenant_id, request_id, acceptance_event_id, version, status, "
    "created_at) VALUES (?, ?, ?, ?, ?, 'ACCEPTED', CURRENT_TIMESTAMP(6))";

constexpr const char* kFindAcceptedOrder =
    "SELECT id, acceptance_event_id FROM orders WHERE tenant_id = ? AND request_id = ?";

std::optional<std::string> submission_problem(const OrderSubmission& order) {
  if (order.request_id.empty() || order.request_id.size() > kMaxRequestIdLength) {
    return "request_id must be 1.." + std::to_string(kMaxRequestIdLength) + " characters";
  }
  if (const auto problem = event_id_problem(order.event_id)) return "event_id " + *problem;
  if (order.payload.empty()) return "payload is empty";
  return trace_context_problem(order.trace);
}

OutboxEventRecord acceptance_event(const OrderSubmission& order) {
  return OutboxEventRecord{order.event_id,   "order",       std::to_string(order.order_id),
                           "ORDER_ACCEPTED", order.version, order.payload,
                           order.trace};
}

void insert_order(MysqlSession& session, const OrderSubmission& order) {
  sql::PreparedStatement& statement = session.prepare(kInsertOrder);
  statement.setInt64(1, order.order_id);
  statement.setInt64(2, order.tenant_id);
  statement.setString(3, order.request_id);
  statement.setString(4, order.event_id);
  statement.setInt64(5, order.version);
  statement.executeUpdate();
}

// Throws sql::SQLException. Ends the read's transaction, so no snapshot or lock outlives it.
std::optional<AcceptedOrder> find_accepted_order(MysqlSession& session, int64_t tenant_id,
                                                 const std::string& request_id) {
  sql::PreparedStatement& statement = session.prepare(kFindAcceptedOrder);
  statement.setInt64(1, tenant_id);
  statement.setString(2, request_id);
  const std::unique_ptr<sql::ResultSet> rows(statement.executeQuery());
  std::optional<AcceptedOrder> found;
  if (rows->next()) {
    found = AcceptedOrder{rows->getInt64(1), std::string(rows->getString(2))};
  }
  session.rollback_quietly();
  return found;
}

}  // namespace

OrderWriter::OrderWriter(MysqlEndpoint primary, SqlIdentifier outbox_table)
    : primary_(std::move(primary)), outbox_table_(std::move(outbox_table)) {}

OrderWriter::~OrderWriter() = default;

SubmitResult OrderWriter::submit(const OrderSubmission& order) {
  try {
    return submit_on_session(order);
  } catch (...) {
    // Not a database answer (out of memory, a driver bug): the transaction may still be open
    // on the session, so the session goes; the server rolls back what it did not commit.
    session_.reset();
    throw;
  }
}

SubmitResult OrderWriter::submit_on_session(const OrderSubmission& order) {
  if (const auto problem = submission_problem(order)) {
    return RolledBack{"not started: " + *problem, 0};
  }
  if (!session_) {
    Outcome<std::unique_ptr<MysqlSession>> opened = MysqlSession::open(primary_, SessionSettings{});
    if (!opened) return RolledBack{"not started: " + opened.error().message, 0};
    session_ = std::move(opened).value();
  }
  try {
    insert_order(*session_, order);
  } catch (const sql::SQLException& e) {
    const bool may_be_duplicate =
        is_duplicate_entry_on(e.getErrorCode(), e.what(), "orders", "uq_orders_tenant_request") ||
        is_duplicate_entry_on(e.getErrorCode(), e.what(), "orders", "PRIMARY");
    return after_failed_statement(describe_sql_error(e), e.getErrorCode(), may_be_duplicate, order);
  }
  try {
    append_event(*session_, acceptance_event(order), outbox_table_);
  } catch (const sql::SQLException& e) {
    return after_failed_statement(describe_sql_error(e), e.getErrorCode(), false, order);
  }
  // Fault-injection tests widen the window before COMMIT (sleep) so that a KILL CONNECTION
  // from another session lands exactly at the commit, or fail here (error) to take the
  // rollback path with both rows written.
  if (failpoints::hit(failpoints::kWriterBeforeCommit)) {
    return after_failed_statement("failpoint writer.before_commit", 0, false, order);
  }
  try {
    session_->commit();
  } catch (const sql::SQLException& e) {
    // The server may have committed and only the answer was lost. A rollback now could not
    // prove otherwise, so none is attempted; the session's state is unknown and is dropped.
    session_.reset();
    return CommitOutcomeUnknown{"COMMIT of order " + std::to_string(order.order_id) + " (request " +
                                order.request_id + ", event " + order.event_id +
                                ") failed: " + describe_sql_error(e)};
  }
  return Committed{AcceptedOrder{order.order_id, order.event_id}};
}

SubmitResult OrderWriter::after_failed_statement(const std::string& error, int error_code,
                                                 bool may_be_duplicate,
                                                 const OrderSubmission& order) {
  const Status rolled_back = session_->rollback();
  if (!rolled_back) {
    session_.reset();
    return CommitOutcomeUnknown{error + "; then " + rolled_back.error().message};
  }
  if (!may_be_duplicate) return RolledBack{error, error_code};
  // 1062 from the order insert on uq_orders_tenant_request, or on the primary key: InnoDB
  // checks the primary key first, so a resubmission with the very same ids (the usual retry)
  // is refused there. Either way the request counts as accepted only if a row is stored for
  // this (tenant_id, request_id); read it on this same session to the primary (after the
  // rollback, READ COMMITTED sees the committed row). Without one, the order id belongs to
  // another request: a plain failure.
  try {
    if (std::optional<AcceptedOrder> stored =
            find_accepted_order(*session_, order.tenant_id, order.request_id)) {
      return AlreadyAccepted{std::move(*stored)};
    }
    return RolledBack{error, error_code};
  } catch (const sql::SQLException& e) {
    if (needs_new_session(e.getErrorCode())) session_.reset();
    return RolledBack{error + "; reading the stored ids failed: " + describe_sql_error(e),
                      e.getErrorCode()};
  }
}

Outcome<std::optional<AcceptedOrder>> OrderWriter::reconcile(int64_t tenant_id,
                                                             const std::string& request_id) const {
  Outcome<std::unique_ptr<MysqlSession>> session = MysqlSession::open(primary_, SessionSettings{});
  if (!session) return Error{"reconcile: " + session.error().message};
  try {
    return find_accepted_order(*session.value(), tenant_id, request_id);
  } catch (const sql::SQLException& e) {
    return Error{"reconcile of tenant " + std::to_string(tenant_id) + " request " + request_id +
                 ": " + describe_sql_error(e)};
  }
}

}  // namespace outbox::writer
