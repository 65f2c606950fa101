#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <vector>

#include "kafka/rdkafka_handles.hpp"
#include "publish/kafka_producer.hpp"
#include "publish/publisher.hpp"

namespace outbox {

// How often a thread that drives a batch (pipelined_deliveries.hpp, transactional_deliveries.hpp)
// looks up from its wait for reports: bounds how late a purge at the batch's deadline comes and
// how long a destructor could wait.
inline constexpr std::chrono::milliseconds kDriverWaitSlice{100};

// The delivery reports of one batch. Each message's opaque points at its ReportSlot; librdkafka's
// poll thread calls on_report(), which records the outcome and wakes the worker waiting in
// wait_until(). The batch keeps its producer alive until every report is in.
class DeliveryReports final : public InFlightDeliveries, public DeliveryReportSink {
 public:
  DeliveryReports(std::shared_ptr<ProducerHandle> producer, size_t size);
  // Never frees slots a report could still point at: if reports are due (only on an exception
  // path) it purges the whole shared producer, every worker's messages included, and waits.
  ~DeliveryReports() override;
  DeliveryReports(const DeliveryReports&) = delete;
  DeliveryReports& operator=(const DeliveryReports&) = delete;

  bool wait_until(std::chrono::steady_clock::time_point deadline) override;
  const std::vector<DeliveryOutcome>& outcomes() const override { return outcomes_; }

  ReportSlot* slot(size_t index) { return &slots_[index]; }
  // Records an outcome: from a delivery report, or from send() when produce failed locally.
  void record(size_t index, DeliveryOutcome outcome);
  // Whether events[i] has its outcome yet, for each i.
  std::vector<bool> reported();

  void on_report(size_t index, const rd_kafka_message_t& message) override;

 private:
  std::shared_ptr<ProducerHandle> producer_;
  std::vector<ReportSlot> slots_;
  std::vector<DeliveryOutcome> outcomes_;
  std::vector<bool> has_outcome_;  // has_outcome_[i]: events[i] was reported or recorded
  std::mutex mutex_;
  std::condition_variable reported_;
  size_t remaining_;
};

}  // namespace outbox
