#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <vector>

#include "delivery.hpp"
#include "kafka_batch.hpp"
#include "kafka_producer.hpp"
#include "message_shape.hpp"
#include "relay_config.hpp"
#include "topic_router.hpp"
#include "transaction_pool.hpp"

namespace outbox {

// Publisher over one shared librdkafka producer: topic from the row (TopicRouter), key, value
// and headers by the message shape (kafka.profile, kafka.headers, kafka.tombstones).
class KafkaPublisher final : public Publisher {
 public:
  // `counters` outlive the publisher and count across producer replacements. With
  // `transactions.producers` > 0 every batch holding several versions of one aggregate is one
  // Kafka transaction on a producer of the pool (transaction_pool.hpp); a batch of one event
  // per aggregate still goes on the shared producer, which also answers probes.
  static Outcome<std::unique_ptr<KafkaPublisher>> create(const KafkaSettings& kafka,
                                                         TopicRouter router,
                                                         ProducerCounters counters = {},
                                                         TransactionSettings transactions = {});

  std::unique_ptr<InFlightDeliveries> send_each(
      const std::vector<const OutboxEvent*>& events,
      std::chrono::steady_clock::time_point enqueue_by,
      const std::function<void()>& still_waiting) override;
  std::chrono::microseconds delivery_timeout() const override { return delivery_timeout_; }
  bool ready() override;
  void abandon_in_flight() override;

  // relay.ordering: transactional: initialises every transactional producer (see
  // TransactionPool::initialise_all); nothing without transactions.
  void initialise_transactions(std::chrono::steady_clock::time_point deadline) {
    if (transactions_) transactions_->initialise_all(deadline);
  }
  // Start-up check: a broker answers within `timeout`.
  Status probe(std::chrono::milliseconds timeout);
  // For /readyz, without contacting the broker: no fatal error, not every broker down.
  bool healthy();
  // Messages librdkafka holds (queued and in flight), for metrics.
  long queue_length();

 private:
  KafkaPublisher(KafkaSettings kafka, TopicRouter router, std::shared_ptr<ProducerHandle> producer,
                 ProducerCounters counters, std::unique_ptr<TransactionPool> transactions);
  // Hands events[i] over to `producer`, recording in `batch` why any was not.
  void hand_over(ProducerHandle& producer, KafkaBatch& batch,
                 const std::vector<const OutboxEvent*>& events,
                 std::chrono::steady_clock::time_point give_up_at,
                 const std::function<void()>& still_waiting);
  std::unique_ptr<InFlightDeliveries> send_in_transaction(
      const std::vector<const OutboxEvent*>& events,
      std::chrono::steady_clock::time_point enqueue_by, const std::function<void()>& still_waiting);
  // The producer to use now; a producer that hit a fatal error is retired here and replaced.
  // Its in-flight messages still get their reports (acknowledged or not) on the old handle.
  std::shared_ptr<ProducerHandle> current();
  // The producer in use, without replacing a fatal one.
  std::shared_ptr<ProducerHandle> peek();

  KafkaSettings kafka_;
  TopicRouter router_;
  MessageShape shape_;
  ProducerCounters counters_;
  Micros delivery_timeout_;
  std::mutex mutex_;
  std::shared_ptr<ProducerHandle> producer_;
  std::vector<std::weak_ptr<ProducerHandle>> retired_;
  std::unique_ptr<TransactionPool> transactions_;  // null: no transactions
  std::atomic<bool> broker_seen_{false};
  std::mutex probe_mutex_;
  std::chrono::steady_clock::time_point next_probe_{};
  bool reported_down_ = false;
  // Since when the probes fail, and when that was last logged (every kStillDownLogInterval).
  std::chrono::steady_clock::time_point down_since_{};
  std::chrono::steady_clock::time_point down_logged_at_{};
  int failed_probes_ = 0;
  // Set by abandon_in_flight(): send() hands nothing over any more. Held shared around each
  // hand-over, exclusively to set the flag, so no message slips in after the purge.
  std::shared_mutex abandon_mutex_;
  bool abandoned_ = false;
};

}  // namespace outbox
