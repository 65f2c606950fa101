#include "publish/transactional_deliveries.hpp"

#include <librdkafka/rdkafka.h>
#include <spdlog/spdlog.h>

#include <algorithm>

namespace outbox {
namespace {

using std::chrono::steady_clock;

}  // namespace

TransactionalDeliveries::TransactionalDeliveries(
    std::unique_ptr<TransactionPool::Transaction> transaction,
    std::unique_ptr<DeliveryReports> batch, Micros end_timeout)
    : DrivenDeliveries(batch->outcomes().size()),
      transaction_(std::move(transaction)),
      batch_(std::move(batch)),
      end_timeout_(end_timeout) {
  start([this] { drive(); });
}

TransactionalDeliveries::~TransactionalDeliveries() {
  join();
}

void TransactionalDeliveries::drive() {
  // Not stoppable: the transaction must end, and the batch's slots must outlive its reports.
  while (!batch_->wait_until(steady_clock::now() + kDriverWaitSlice)) {
  }
  const std::vector<DeliveryOutcome>& reports = batch_->outcomes();
  const bool all_acknowledged = std::all_of(
      reports.begin(), reports.end(),
      [](const DeliveryOutcome& outcome) { return outcome.status == DeliveryStatus::kDelivered; });
  const TransactionEnd end =
      all_acknowledged ? transaction_->commit(end_timeout_) : transaction_->abort(end_timeout_);
  settle(end);
  if (end.fate == TransactionFate::kCommitted) {
    // Debug level: what outbox-verify ordering counts as evidence that this path ran.
    spdlog::debug("transaction committed: {} events on {}", reports.size(), transaction_->id());
  } else {
    spdlog::warn("transaction of {} events on {} {}{}", reports.size(), transaction_->id(),
                 end.fate == TransactionFate::kAborted ? "aborted" : "ended unknown",
                 end.error.empty() ? std::string() : ": " + end.error);
  }
  // The producer goes back to the pool with the transaction's end; the batch (and the
  // producer it holds) goes with this object.
  finish();
}

void TransactionalDeliveries::settle(const TransactionEnd& end) {
  outcomes_ = batch_->outcomes();
  if (end.fate == TransactionFate::kCommitted) return;
  // The first failure, named in every other event's outcome.
  std::string cause;
  for (const DeliveryOutcome& outcome : outcomes_) {
    if (outcome.status != DeliveryStatus::kDelivered) {
      cause = outcome.error;
      break;
    }
  }
  for (DeliveryOutcome& outcome : outcomes_) {
    if (end.fate == TransactionFate::kMaybeCommitted) {
      outcome.status = DeliveryStatus::kMaybeDelivered;
      outcome.error_code = end.error_code;
      outcome.error = end.error;
    } else if (cause.empty()) {
      // Every report was an acknowledgement, the coordinator refused the commit.
      outcome.status = DeliveryStatus::kNotDelivered;
      outcome.error_code = end.error_code;
      outcome.error = end.error;
    } else if (outcome.status == DeliveryStatus::kDelivered) {
      outcome.status = DeliveryStatus::kNotDelivered;
      outcome.error_code = RD_KAFKA_RESP_ERR__PREV_IN_PROGRESS;
      outcome.error = std::string(rd_kafka_err2name(RD_KAFKA_RESP_ERR__PREV_IN_PROGRESS)) +
                      ": aborted with its transaction, because " + cause;
    }
    outcome.offset = -1;
  }
}

}  // namespace outbox
