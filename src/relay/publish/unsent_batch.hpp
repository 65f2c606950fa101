#pragma once

#include <string>
#include <vector>

#include "publish/publisher.hpp"

namespace outbox {

// The deliveries of a batch that Publisher::send() threw on: no report can come for any of its
// events, so every outcome is there at once. Each is "maybe delivered" (the worker cannot know
// what the publisher did before it threw, so nothing is marked) with the error code of a send
// that failed locally (RD_KAFKA_RESP_ERR__FAIL), which the failure policy releases without an
// attempt: the rows go back to PENDING and are published again.
class UnsentBatch final : public InFlightDeliveries {
 public:
  UnsentBatch(size_t events, const std::string& error);

  bool wait_until(std::chrono::steady_clock::time_point /*deadline*/) override { return true; }
  const std::vector<DeliveryOutcome>& outcomes() const override { return outcomes_; }

 private:
  std::vector<DeliveryOutcome> outcomes_;
};

}  // namespace outbox
