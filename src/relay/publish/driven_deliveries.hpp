#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "publish/publisher.hpp"

namespace outbox {

// The deliveries of a batch that a thread of the batch's own sees through: it waits for the
// reports and ends what must end before the rows may be settled (a transaction's commit or
// abort, a purge at the delivery timeout, the next wave of a chain), then finishes. The worker
// only waits for that finish, so every batch in flight advances while the worker claims,
// marks or waits for an older one. pipelined_deliveries.hpp, transactional_deliveries.hpp and
// chained_deliveries.hpp are the three.
class DrivenDeliveries : public InFlightDeliveries {
 public:
  ~DrivenDeliveries() override;
  DrivenDeliveries(const DrivenDeliveries&) = delete;
  DrivenDeliveries& operator=(const DrivenDeliveries&) = delete;

  bool wait_until(std::chrono::steady_clock::time_point deadline) final;
  const std::vector<DeliveryOutcome>& outcomes() const final { return outcomes_; }

 protected:
  explicit DrivenDeliveries(size_t events) : outcomes_(events) {}

  // Runs `drive` on the batch's thread. The last step of a derived constructor: every member
  // the drive uses must exist by then.
  void start(std::function<void()> drive);
  // Waits for the batch's thread. The first step of a derived destructor: the drive uses the
  // derived members, which go before this base's destructor runs.
  void join();
  // The drive's last step (or the constructor's, when there is nothing to wait for):
  // outcomes_ is complete, and wait_until() returns true from now on.
  void finish();

  // One per event, in batch order. Written only by the constructor or the batch's thread
  // before finish(); read by the worker only after wait_until() returned true.
  std::vector<DeliveryOutcome> outcomes_;

 private:
  std::mutex mutex_;
  std::condition_variable done_changed_;
  bool done_ = false;
  std::jthread driver_;
};

}  // namespace outbox
