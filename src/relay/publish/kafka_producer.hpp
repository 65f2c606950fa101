#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "kafka/rdkafka_handles.hpp"
#include "outcome.hpp"
#include "publish/client_statistics.hpp"
#include "publish/delivery_clock.hpp"
#include "publish/kafka_settings.hpp"
#include "publish/producer_config.hpp"

namespace outbox {

// Where a producer reports what librdkafka tells it beside the delivery reports; either may be
// null. Shared by every generation of the process's producer.
struct ProducerCounters {
  std::atomic<uint64_t>* errors = nullptr;  // error callbacks
  ClientStatistics* statistics = nullptr;   // its statistics (statistics.interval.ms)
  DeliveryClock* deliveries = nullptr;      // when a message was last confirmed
};

// Receives the delivery reports of the messages whose opaque points at one of its ReportSlots
// (delivery_reports.hpp). An interface here so that the producer, which registers the callback,
// does not depend on what a batch does with its reports.
class DeliveryReportSink {
 public:
  // On the producer's poll thread.
  virtual void on_report(size_t index, const rd_kafka_message_t& message) = 0;

 protected:
  ~DeliveryReportSink() = default;
};

// What each produced message's opaque points at: which sink gets its report, as which message.
struct ReportSlot {
  DeliveryReportSink* sink;
  size_t index;
};

// One librdkafka producer and the thread that serves its callbacks. Delivery reports run on
// that thread (rd_kafka_poll), never on the workers'. Shared by all workers of a process;
// replaced as a whole after a fatal idempotence error (librdkafka 2.0.2 can escalate a
// possibly-persisted error to fatal, and a fatal producer never produces again).
class ProducerHandle {
 public:
  // `role`: the shared producer by default, else a transactional (transaction_pool.hpp) or a
  // gapless one (gapless_pool.hpp).
  static Outcome<std::shared_ptr<ProducerHandle>> create(const KafkaSettings& kafka, int generation,
                                                         ProducerCounters counters,
                                                         ProducerRole role = {});
  ~ProducerHandle();
  ProducerHandle(const ProducerHandle&) = delete;
  ProducerHandle& operator=(const ProducerHandle&) = delete;

  rd_kafka_t* get() const { return handle_.get(); }
  int generation() const { return generation_; }

  // Set from librdkafka's error callback.
  bool fatal() const { return fatal_.load(); }
  std::string fatal_reason() const;
  // The rd_kafka_resp_err_t of the fatal error (PRODUCER_FENCED, say); 0 while none.
  int fatal_code() const { return fatal_code_.load(); }
  bool all_brokers_down() const { return all_brokers_down_.load(); }
  void set_brokers_up() { all_brokers_down_.store(false); }

  // Gives up on every message queued or in flight: each gets its report at once.
  void purge();
  // Messages it holds, queued and in flight.
  long queue_length() const;

  // Fetches broker metadata: proof that a broker answers.
  Status probe(std::chrono::milliseconds timeout);

 private:
  ProducerHandle(int generation, ProducerCounters counters)
      : generation_(generation), counters_(counters) {}
  // All three run on the poll thread (rd_kafka_poll).
  static void on_delivery(rd_kafka_t* handle, const rd_kafka_message_t* message, void* opaque);
  static void on_error(rd_kafka_t* handle, int error, const char* reason, void* opaque);
  static int on_statistics(rd_kafka_t* handle, char* json, size_t json_len, void* opaque);

  int generation_;
  ProducerCounters counters_;
  bool statistics_warned_ = false;  // poll thread only
  RdKafkaHandle handle_;
  std::atomic<bool> fatal_{false};
  std::atomic<int> fatal_code_{0};
  std::atomic<bool> all_brokers_down_{false};
  // The last error callback was the broker refusing our credentials (SASL) or our TLS
  // handshake: a probe that fails names that, not only its timeout.
  std::atomic<int> refusal_code_{0};
  mutable std::mutex fatal_mutex_;
  std::string fatal_reason_;
  std::jthread poller_;
};

}  // namespace outbox
