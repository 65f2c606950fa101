#include "order_acceptance.hpp"

#include <spdlog/spdlog.h>

#include <variant>

#include "interruptible_sleep.hpp"
#include "mysql/mysql_error.hpp"

namespace outbox::loadgen {
namespace {

using writer::AcceptedOrder;
using writer::AlreadyAccepted;
using writer::CommitOutcomeUnknown;
using writer::Committed;
using writer::OrderSubmission;
using writer::OrderWriter;
using writer::RolledBack;
using writer::SubmitResult;

constexpr int kLockWaitTimeout = 1205;
constexpr int kDeadlock = 1213;

// A rollback worth retrying with the same ids: nothing was committed and the cause may pass.
bool transient(const RolledBack& rolled_back) {
  return rolled_back.error_code == 0 || rolled_back.error_code == kLockWaitTimeout ||
         rolled_back.error_code == kDeadlock || is_connection_error(rolled_back.error_code);
}

// reconcile() until the primary answers: "could not look" is never read as "absent".
std::optional<std::optional<AcceptedOrder>> reconcile_until_answered(const OrderWriter& writer,
                                                                     const OrderSubmission& order,
                                                                     Backoff& backoff,
                                                                     const std::stop_token& stop) {
  for (;;) {
    Outcome<std::optional<AcceptedOrder>> found =
        writer.reconcile(order.tenant_id, order.request_id);
    if (found) return found.value();
    const Micros pause = backoff.next();
    spdlog::warn("order {}: {}; retrying reconcile in {}", order.order_id, found.error().message,
                 format_pause(pause));
    if (!sleep_unless_stopped(stop, pause)) return std::nullopt;
  }
}

}  // namespace

Outcome<AcceptedOrder> accept_order(OrderWriter& writer, const OrderSubmission& order,
                                    Backoff& backoff, AcceptanceCounts& counts,
                                    const std::stop_token& stop) {
  bool resubmitted = false;  // after a reconcile that found nothing
  for (;;) {
    const SubmitResult result = writer.submit(order);
    if (const auto* committed = std::get_if<Committed>(&result)) {
      ++counts.committed;
      backoff.reset();
      return committed->order;
    }
    if (const auto* accepted = std::get_if<AlreadyAccepted>(&result)) {
      ++counts.already_accepted;
      backoff.reset();
      if (resubmitted) {
        // The killed session's COMMIT can still be finishing on the server when the reconcile
        // reads on a new connection: it sees nothing, and the resubmission then meets the
        // stored request. The same ids make that harmless; the line says where it came from.
        spdlog::info(
            "order {}: the resubmission found it already accepted as order {} (event {}): the "
            "unknown commit landed after the reconcile looked",
            order.order_id, accepted->stored.order_id, accepted->stored.acceptance_event_id);
      }
      return accepted->stored;
    }
    if (const auto* unknown = std::get_if<CommitOutcomeUnknown>(&result)) {
      ++counts.unknown;
      spdlog::warn("order {}: {}; reconciling on the primary", order.order_id, unknown->error);
      const auto found = reconcile_until_answered(writer, order, backoff, stop);
      if (!found) return Error{"stopped while reconciling order " + std::to_string(order.order_id)};
      if (*found) {
        ++counts.reconciled_found;
        spdlog::info(
            "order {}: reconcile found it committed as order {} (event {}); not resubmitted",
            order.order_id, (*found)->order_id, (*found)->acceptance_event_id);
        return **found;
      }
      ++counts.reconciled_absent;
      spdlog::info("order {}: reconcile found nothing on the primary; resubmitting the same ids",
                   order.order_id);
      resubmitted = true;
      continue;
    }
    const auto& rolled_back = std::get<RolledBack>(result);
    if (!transient(rolled_back)) {
      return Error{"order " + std::to_string(order.order_id) + ": " + rolled_back.error};
    }
    ++counts.retried;
    const Micros pause = backoff.next();
    spdlog::warn("order {}: {}; resubmitting the same ids in {}", order.order_id, rolled_back.error,
                 format_pause(pause));
    if (!sleep_unless_stopped(stop, pause)) {
      return Error{"stopped while retrying order " + std::to_string(order.order_id)};
    }
  }
}

}  // namespace outbox::loadgen
