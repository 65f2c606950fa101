#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <vector>

#include "publish/delivery_reports.hpp"
#include "publish/gapless_pool.hpp"
#include "publish/kafka_producer.hpp"
#include "publish/kafka_settings.hpp"
#include "publish/message_shape.hpp"
#include "publish/partition_map.hpp"
#include "publish/publisher.hpp"
#include "publish/topic_router.hpp"
#include "publish/transaction_pool.hpp"

namespace outbox {

// relay.pipelined_chains: gapless producers for batches holding several versions of an
// aggregate (gapless_pool.hpp, pipelined_deliveries.hpp).
struct PipelineSettings {
  size_t producers = 0;  // one per batch that can be in flight; 0: chains go in waves
  // Counts versions acknowledged behind an earlier one that was not (never expected).
  std::atomic<uint64_t>* inversions = nullptr;
  std::atomic<uint64_t>* batches = nullptr;  // counts the batches sent this way
};

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
                                                         TransactionSettings transactions = {},
                                                         PipelineSettings pipeline = {});

  std::unique_ptr<InFlightDeliveries> send_each(
      const std::vector<const OutboxEvent*>& events,
      std::chrono::steady_clock::time_point enqueue_by,
      const std::function<void()>& still_waiting) override;
  std::unique_ptr<InFlightDeliveries> send_chains(
      const std::vector<OutboxEvent>& events, const std::vector<size_t>& after,
      std::chrono::steady_clock::time_point enqueue_by,
      std::chrono::steady_clock::time_point settle_by,
      const std::function<void()>& still_waiting) override;
  Destination destination_of(const OutboxEvent& event) override;
  void learn_partitions(const std::string& topic) override;
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
                 ProducerCounters counters, std::unique_ptr<TransactionPool> transactions,
                 std::unique_ptr<GaplessPool> gapless, PipelineSettings pipeline);
  // Hands events[i] over to `producer`, recording in `batch` why any was not. With `after`
  // (chains, as in send_chains), a version whose predecessor was not handed over is not
  // either: it would land without it.
  void hand_over(ProducerHandle& producer, DeliveryReports& batch,
                 const std::vector<const OutboxEvent*>& events,
                 std::chrono::steady_clock::time_point give_up_at,
                 const std::function<void()>& still_waiting,
                 const std::vector<size_t>* after = nullptr);
  // Whether every version of every chain goes to its predecessor's topic with its key, so to
  // its partition: only then does the partition's sequence keep a chain gapless.
  bool chains_share_partitions(const std::vector<OutboxEvent>& events,
                               const std::vector<size_t>& after);
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
  PartitionMap partitions_;
  std::mutex mutex_;
  std::shared_ptr<ProducerHandle> producer_;
  std::vector<std::weak_ptr<ProducerHandle>> retired_;
  std::unique_ptr<TransactionPool> transactions_;  // null: no transactions
  std::unique_ptr<GaplessPool> gapless_;           // null: chains go in waves
  PipelineSettings pipeline_;
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
