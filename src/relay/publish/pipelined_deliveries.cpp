#include "publish/pipelined_deliveries.hpp"

#include <librdkafka/rdkafka.h>
#include <spdlog/spdlog.h>

#include <algorithm>

namespace outbox {
namespace {

using std::chrono::steady_clock;

}  // namespace

size_t count_inversions(const std::vector<DeliveryOutcome>& outcomes,
                        const std::vector<size_t>& after, std::vector<size_t>* where) {
  // broken[i]: some version of i's chain up to and including i was not delivered.
  std::vector<bool> broken(outcomes.size(), false);
  size_t inversions = 0;
  for (size_t i = 0; i < outcomes.size(); ++i) {
    const bool behind_broken = after[i] != i && broken[after[i]];
    const bool delivered = outcomes[i].status == DeliveryStatus::kDelivered;
    if (behind_broken && delivered) {
      ++inversions;
      if (where != nullptr) where->push_back(i);
    }
    broken[i] = behind_broken || !delivered;
  }
  return inversions;
}

PipelinedDeliveries::PipelinedDeliveries(std::unique_ptr<GaplessPool::Lease> lease,
                                         std::unique_ptr<DeliveryReports> batch,
                                         std::vector<size_t> after,
                                         std::vector<std::string> event_ids,
                                         steady_clock::time_point report_by,
                                         std::atomic<uint64_t>* inversions,
                                         std::atomic<uint64_t>* batches)
    : DrivenDeliveries(after.size()),
      lease_(std::move(lease)),
      batch_(std::move(batch)),
      after_(std::move(after)),
      event_ids_(std::move(event_ids)),
      report_by_(report_by),
      inversions_(inversions),
      batches_(batches) {
  start([this] { drive(); });
}

PipelinedDeliveries::~PipelinedDeliveries() {
  join();
}

void PipelinedDeliveries::drive() {
  // Not stoppable: the batch's slots must outlive its reports.
  bool purged = false;
  std::vector<bool> reported_before_timeout;  // set when the delivery timeout purged the batch
  while (!batch_->wait_until(steady_clock::now() + kDriverWaitSlice)) {
    if (purged) continue;
    const std::shared_ptr<ProducerHandle>& producer = lease_->producer();
    if (producer->fatal()) {
      // The gapless guarantee stopped the producer (one request failed for good): librdkafka
      // failed what it had queued, but requests it had in flight behind the failed one wait to
      // be retried by a producer that never sends again. Their events are not this batch's
      // fault: their reports stay purges, released without an attempt.
      spdlog::warn("pipelined batch of {} events: its producer stopped ({}); purging the rest",
                   after_.size(), producer->fatal_reason());
    } else if (steady_clock::now() >= report_by_) {
      // No message timeout on this producer: without the purge a report could come after the
      // lease, once another relay took the rows over. The producer holds this batch alone.
      spdlog::warn(
          "pipelined batch of {} events not reported within the delivery timeout: purging its "
          "producer; what was not acknowledged is not marked and goes again",
          after_.size());
      reported_before_timeout = batch_->reported();
    } else {
      continue;
    }
    producer->purge();
    purged = true;
  }
  outcomes_ = batch_->outcomes();
  // What the purge at the delivery timeout ended reads as that timeout, as on the shared
  // producer (the failure policy and the outage detection judge it so); reports that came
  // before it keep their own error.
  for (size_t i = 0; i < reported_before_timeout.size(); ++i) {
    DeliveryOutcome& outcome = outcomes_[i];
    if (reported_before_timeout[i] || (outcome.error_code != RD_KAFKA_RESP_ERR__PURGE_QUEUE &&
                                       outcome.error_code != RD_KAFKA_RESP_ERR__PURGE_INFLIGHT)) {
      continue;
    }
    outcome.error_code = RD_KAFKA_RESP_ERR__MSG_TIMED_OUT;
    outcome.error = std::string(rd_kafka_err2name(RD_KAFKA_RESP_ERR__MSG_TIMED_OUT)) +
                    ": not acknowledged within the delivery timeout (a pipelined batch's "
                    "producer, purged)";
  }
  const bool all_delivered = std::all_of(
      outcomes_.begin(), outcomes_.end(),
      [](const DeliveryOutcome& outcome) { return outcome.status == DeliveryStatus::kDelivered; });
  if (purged || !all_delivered) lease_->retire();
  std::vector<size_t> inverted;
  if (count_inversions(outcomes_, after_, &inverted) > 0) {
    if (inversions_ != nullptr) inversions_->fetch_add(inverted.size());
    for (size_t i : inverted) {
      spdlog::error(
          "order: event {} was acknowledged although an earlier version of its aggregate in the "
          "same pipelined batch was not ({}); it is marked, the earlier one goes again after it",
          event_ids_[i], outcomes_[after_[i]].error);
    }
  }
  if (batches_ != nullptr) batches_->fetch_add(1);
  // Debug level: one line per batch is what outbox-verify ordering counts as evidence that
  // this path ran, killed relays included (the metric dies with them).
  spdlog::debug("pipelined batch settled: {} events, {} acknowledged{}", outcomes_.size(),
                std::count_if(outcomes_.begin(), outcomes_.end(),
                              [](const DeliveryOutcome& outcome) {
                                return outcome.status == DeliveryStatus::kDelivered;
                              }),
                purged ? ", the rest purged" : "");
  // The producer goes back to the pool before the worker settles; a retired one is destroyed
  // here, with the batch that held it last (every report came), not on the worker's thread.
  lease_.reset();
  batch_.reset();
  finish();
}

}  // namespace outbox
