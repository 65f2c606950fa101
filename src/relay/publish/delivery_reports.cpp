#include "publish/delivery_reports.hpp"

#include <spdlog/spdlog.h>

namespace outbox {

DeliveryReports::DeliveryReports(std::shared_ptr<ProducerHandle> producer, size_t size)
    : producer_(std::move(producer)), outcomes_(size), has_outcome_(size, false), remaining_(size) {
  slots_.reserve(size);
  for (size_t i = 0; i < size; ++i)
    slots_.push_back(ReportSlot{this, i});
}

DeliveryReports::~DeliveryReports() {
  std::unique_lock lock(mutex_);
  if (remaining_ == 0) return;
  spdlog::warn("discarding a batch with {} deliveries outstanding: purging them", remaining_);
  lock.unlock();
  producer_->purge();
  lock.lock();
  reported_.wait(lock, [this] { return remaining_ == 0; });
}

bool DeliveryReports::wait_until(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock lock(mutex_);
  return reported_.wait_until(lock, deadline, [this] { return remaining_ == 0; });
}

std::vector<bool> DeliveryReports::reported() {
  std::lock_guard lock(mutex_);
  return has_outcome_;
}

void DeliveryReports::record(size_t index, DeliveryOutcome outcome) {
  std::lock_guard lock(mutex_);
  outcomes_[index] = std::move(outcome);
  has_outcome_[index] = true;
  --remaining_;
  // Notify while holding the lock: once it is released the worker may destroy this batch.
  if (remaining_ == 0) reported_.notify_all();
}

void DeliveryReports::on_report(size_t index, const rd_kafka_message_t& report) {
  const rd_kafka_message_t* message = &report;
  DeliveryOutcome outcome;
  outcome.reported_at = std::chrono::steady_clock::now();
  outcome.topic = rd_kafka_topic_name(message->rkt);
  outcome.partition = message->partition;
  if (message->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
    outcome.status = DeliveryStatus::kDelivered;
    outcome.offset = message->offset;
  } else {
    // An error report is "maybe delivered" unless librdkafka knows the broker never wrote it.
    outcome.status = rd_kafka_message_status(message) == RD_KAFKA_MSG_STATUS_NOT_PERSISTED
                         ? DeliveryStatus::kNotDelivered
                         : DeliveryStatus::kMaybeDelivered;
    outcome.error_code = message->err;
    // Not rd_kafka_message_errstr(): for a producer's failed message it returns the payload,
    // which is not NUL-terminated.
    outcome.error =
        std::string(rd_kafka_err2name(message->err)) + ": " + rd_kafka_err2str(message->err);
  }
  record(index, std::move(outcome));
}

}  // namespace outbox
