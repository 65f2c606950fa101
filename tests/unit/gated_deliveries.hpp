#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "publish/publisher.hpp"

namespace outbox::test {

// Deliveries whose reports arrive when the test opens the gate (at once while it is open).
class GatedDeliveries final : public InFlightDeliveries {
 public:
  GatedDeliveries(std::vector<DeliveryOutcome> outcomes, std::shared_ptr<std::atomic<bool>> gate)
      : outcomes_(std::move(outcomes)), gate_(std::move(gate)) {}
  bool wait_until(std::chrono::steady_clock::time_point deadline) override {
    while (!gate_->load()) {
      if (std::chrono::steady_clock::now() >= deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
  }
  const std::vector<DeliveryOutcome>& outcomes() const override { return outcomes_; }

 private:
  std::vector<DeliveryOutcome> outcomes_;
  std::shared_ptr<std::atomic<bool>> gate_;
};

}  // namespace outbox::test
