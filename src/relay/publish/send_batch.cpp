#include "publish/send_batch.hpp"

#include "publish/chained_deliveries.hpp"

namespace outbox {

std::unique_ptr<InFlightDeliveries> send_batch(Publisher& publisher,
                                               const std::vector<OutboxEvent>& events,
                                               const std::vector<size_t>& after,
                                               std::chrono::steady_clock::time_point enqueue_by,
                                               std::chrono::steady_clock::time_point settle_by,
                                               std::function<void()> still_waiting) {
  if (after.empty()) return publisher.send(events, enqueue_by, still_waiting);
  std::unique_ptr<InFlightDeliveries> together =
      publisher.send_chains(events, after, enqueue_by, settle_by, still_waiting);
  if (together) return together;
  return std::make_unique<ChainedDeliveries>(publisher, events, after, enqueue_by,
                                             std::move(still_waiting));
}

}  // namespace outbox
