#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "outbox_event.hpp"
#include "publish/failure_kind.hpp"

namespace outbox {

// What the broker said about one message. Only kDelivered may be marked PUBLISHED.
enum class DeliveryStatus {
  kDelivered,       // acknowledged by the broker with acks=all
  kNotDelivered,    // certainly not written (never sent, or refused before the log)
  kMaybeDelivered,  // sent but unconfirmed (timeout, purge, fatal producer error)
};

struct DeliveryOutcome {
  DeliveryStatus status = DeliveryStatus::kMaybeDelivered;
  std::string topic;
  int32_t partition = -1;
  int64_t offset = -1;
  int error_code = 0;                                   // rd_kafka_resp_err_t, 0 when delivered
  std::chrono::steady_clock::time_point reported_at{};  // when the delivery report arrived
  std::string error;                                    // "ERR_NAME: broker or client message"

  // Whose fault a failure is, classified here on the broker side (failure_kind.hpp), so the
  // settlement decides what happens to the row without reading librdkafka's codes.
  FailureKind failure() const { return classify_failure(error_code); }
  // The error code's name (MSG_TIMED_OUT, _PURGE_QUEUE), for metrics labels.
  std::string error_name() const { return error_code_name(error_code); }
};

// Where a message goes. partition -1: not known before it is sent (a null key, a partitioner
// whose choice cannot be computed ahead, a topic whose partition count is not known yet).
struct Destination {
  std::string topic;
  int32_t partition = -1;
  friend bool operator==(const Destination&, const Destination&) = default;
  // For maps keyed by partition: by topic, then partition.
  friend bool operator<(const Destination& a, const Destination& b) {
    return std::tie(a.topic, a.partition) < std::tie(b.topic, b.partition);
  }
  // "outbox.order[2]", appended piece by piece: GCC 12 at -O3 reports a false -Wrestrict on
  // `"[" + std::to_string(...)` (GCC bug 105329).
  std::string name() const {
    std::string out = topic;
    out += '[';
    out += std::to_string(partition);
    out += ']';
    return out;
  }
};

// The messages of one claimed batch after they were handed to the producer.
class InFlightDeliveries {
 public:
  virtual ~InFlightDeliveries() = default;
  // Waits until every message has its delivery report, or the deadline. True if all reported.
  virtual bool wait_until(std::chrono::steady_clock::time_point deadline) = 0;
  // One outcome per event, in batch order; complete once wait_until returned true.
  virtual const std::vector<DeliveryOutcome>& outcomes() const = 0;
};

// The broker side of claim -> publish -> mark.
class Publisher {
 public:
  virtual ~Publisher() = default;
  // Hands every event to the producer. Blocks only for producer-queue backpressure, and never
  // past `enqueue_by`: events not handed over by then get a kNotDelivered QUEUE_FULL outcome
  // (released, no attempt). Each handed-over event's report comes within delivery_timeout()
  // of its hand-over, so every report of the batch arrives by enqueue_by + delivery_timeout().
  // While it waits for queue room it calls `still_waiting` every few milliseconds, so the
  // caller can show that it is not stuck. The events must stay alive, unchanged, until every
  // report arrived: the producer sends their payloads without copying them. It should not
  // throw (a failure mid-batch gives the rest a kNotDelivered outcome); if it does, nothing of
  // the batch may be left with the producer: the caller releases every event.
  std::unique_ptr<InFlightDeliveries> send(const std::vector<OutboxEvent>& events,
                                           std::chrono::steady_clock::time_point enqueue_by,
                                           const std::function<void()>& still_waiting) {
    std::vector<const OutboxEvent*> each;
    each.reserve(events.size());
    for (const OutboxEvent& event : events)
      each.push_back(&event);
    return send_each(each, enqueue_by, still_waiting);
  }
  // A temporary would be freed while the producer still sends from its payloads.
  std::unique_ptr<InFlightDeliveries> send(std::vector<OutboxEvent>&& events,
                                           std::chrono::steady_clock::time_point enqueue_by,
                                           const std::function<void()>& still_waiting) = delete;
  // send() of events held elsewhere, by address (a chained batch sends a part of its events at
  // a time, chained_deliveries.hpp); outcomes in this vector's order. The same contract.
  virtual std::unique_ptr<InFlightDeliveries> send_each(
      const std::vector<const OutboxEvent*>& events,
      std::chrono::steady_clock::time_point enqueue_by,
      const std::function<void()>& still_waiting) = 0;
  // A batch holding chains (after[i]: index of events[i]'s predecessor, i for none;
  // predecessors first) sent all at once, every version on its predecessor's partition behind
  // it with no gap possible (pipelined_deliveries.hpp), or all or nothing (one transaction);
  // every report by `settle_by`. Null when this publisher cannot keep that promise for the
  // batch: send_batch() (send_batch.hpp) then sends the chains in waves (chained_deliveries.hpp).
  // The contract of send() otherwise.
  virtual std::unique_ptr<InFlightDeliveries> send_chains(
      const std::vector<OutboxEvent>& /*events*/, const std::vector<size_t>& /*after*/,
      std::chrono::steady_clock::time_point /*enqueue_by*/,
      std::chrono::steady_clock::time_point /*settle_by*/,
      const std::function<void()>& /*still_waiting*/) {
    return nullptr;
  }
  // Where `event` would go, computed as the producer will: its topic, and its partition where
  // the partitioner's choice can be known ahead and the topic's partition count was learnt
  // (learn_partitions). For holding a paused partition's events back before they are sent
  // (paused_partitions.hpp). Never contacts the cluster.
  virtual Destination destination_of(const OutboxEvent& /*event*/) { return {}; }
  // Asks the cluster how many partitions `topic` has (bounded wait), for destination_of: when
  // a partition of it is paused. A failure leaves the partitions unknown.
  virtual void learn_partitions(const std::string& /*topic*/) {}
  // librdkafka's message.timeout.ms (delivery.timeout.ms): the bound on each report.
  virtual std::chrono::microseconds delivery_timeout() const = 0;
  // Whether claiming more rows makes sense now: false while no broker answers, so rows are
  // not leased only to wait out their delivery timeout. May probe the broker (bounded).
  virtual bool ready() = 0;
  // Drain deadline passed: give up on every queued and in-flight message so their reports
  // arrive at once (as not or maybe delivered) and the rows can be released. From then on
  // send() hands nothing over (every event kNotDelivered, _PURGE_QUEUE): a worker still
  // sending must not hold the exit for a delivery timeout.
  virtual void abandon_in_flight() = 0;
};

}  // namespace outbox
