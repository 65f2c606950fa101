#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <vector>

#include "outbox_event.hpp"
#include "publish/publisher.hpp"

namespace outbox {

// The one call a worker makes for a claimed batch: picks how it reaches Kafka for
// relay.ordering (delivery_order.hpp). `after` holds its chains (after[i]: index of events[i]'s
// predecessor, i for none; predecessors first), empty when it has none. A batch without chains
// goes as publisher.send(); one with chains all at once where publisher.send_chains() keeps
// them gapless (or in one transaction), else in waves, a version once its predecessor was
// acknowledged (chained_deliveries.hpp), driven by the wait for the batch's reports. The
// contract of Publisher::send(); every report by `settle_by`.
std::unique_ptr<InFlightDeliveries> send_batch(Publisher& publisher,
                                               const std::vector<OutboxEvent>& events,
                                               const std::vector<size_t>& after,
                                               std::chrono::steady_clock::time_point enqueue_by,
                                               std::chrono::steady_clock::time_point settle_by,
                                               std::function<void()> still_waiting);
// A temporary would be freed while the producer still sends from its payloads.
std::unique_ptr<InFlightDeliveries> send_batch(Publisher& publisher,
                                               std::vector<OutboxEvent>&& events,
                                               const std::vector<size_t>& after,
                                               std::chrono::steady_clock::time_point enqueue_by,
                                               std::chrono::steady_clock::time_point settle_by,
                                               std::function<void()> still_waiting) = delete;

}  // namespace outbox
