#pragma once

#include <chrono>
#include <memory>
#include <stop_token>
#include <string>

#include "consumer_settings.hpp"
#include "consumer_stats.hpp"
#include "dead_letter_publisher.hpp"
#include "event_handler.hpp"
#include "kafka/rdkafka_handles.hpp"
#include "mysql/mysql_endpoint.hpp"
#include "mysql/mysql_session.hpp"
#include "outcome.hpp"
#include "partition_holds.hpp"
#include "partition_positions.hpp"

namespace outbox::consumer {

struct ConsumerOptions {
  ConsumerSettings settings;
  MysqlEndpoint mysql;
  EventHandler handler;
  Micros stats_interval = std::chrono::seconds(30);  // a progress line this often; 0: none
};

enum class ConsumerExit {
  kDrained,             // stop requested: the message in hand settled, offsets committed,
                        // the group left
  kStoppedBeforeStart,  // stop requested while waiting for MySQL: nothing was consumed
  kNeedsOperator,       // consumed_event lacks uq_consumed_event_identity: logged
  kKafkaFatal,          // librdkafka reported a fatal error: logged
};

// The seed's consumer: a Kafka consumer group member (enable.auto.commit=false) that applies
// each event at most once per consumer name and acknowledges only what it settled.
//
// Per message, on one thread:
//   1. event_id from the header; none or invalid -> dead-letter topic (reason in a header),
//      offset committed, no local effect;
//   2. apply_once(): INSERT consumed_event + the handler's effect + COMMIT on one session;
//   3. committed, or already consumed (1062 on uq_consumed_event_identity only) -> acknowledge
//      the offset (committed with the others at most every consumer.commit_interval,
//      asynchronously; synchronously when partitions are revoked and at shutdown);
//      rejected by the handler, or failed by its own fault consumer.max_attempts times ->
//      dead-letter topic with the reason, then acknowledge;
//   4. anything else, including a COMMIT that threw -> not acknowledged: the partition is
//      paused and rewound to the message (rd_kafka_seek_partitions) and resumed after a
//      backoff pause, so the same message is tried again first and never skipped. The loop
//      keeps polling throughout: the other partitions flow, and the group membership (and
//      max.poll.interval.ms) stays alive however long a message keeps failing.
//
// Not thread-safe; run() uses MySQL on the calling thread, which must hold a MysqlThreadScope
// (and init_mysql_driver() must have run on the main thread first).
class EventConsumer {
 public:
  static Outcome<std::unique_ptr<EventConsumer>> create(ConsumerOptions options);
  ~EventConsumer();
  EventConsumer(const EventConsumer&) = delete;
  EventConsumer& operator=(const EventConsumer&) = delete;

  // Waits for MySQL (and the consumed_event schema), joins the group and consumes until
  // `stop` is requested.
  [[nodiscard]] ConsumerExit run(const std::stop_token& stop);

  const ConsumerStats& stats() const { return stats_; }

 private:
  explicit EventConsumer(ConsumerOptions options);

  enum class Readiness { kReady, kStopped, kWrongSchema };
  Readiness wait_for_database(const std::stop_token& stop);
  bool open_session();
  void handle(const rd_kafka_message_t& message);
  void apply(const TopicPartition& partition, ReceivedEvent& event);
  void dead_letter(const TopicPartition& partition, const ReceivedEvent& event,
                   const std::string& reason, const std::string& what);
  // `counts_attempt`: the failure counts toward consumer.max_attempts.
  void hold_back(const TopicPartition& partition, const ReceivedEvent& event,
                 const std::string& why, bool counts_attempt);
  void resume_due_partitions();
  // The message settled (applied, duplicate or dead-lettered): release and acknowledge it.
  void settle(const TopicPartition& partition, int64_t offset);
  void on_consumer_error(const rd_kafka_message_t& message);
  void report_progress(bool force);

  static void on_rebalance(rd_kafka_t* handle, rd_kafka_resp_err_t error,
                           rd_kafka_topic_partition_list_t* partitions, void* opaque);
  static void on_offset_commit(rd_kafka_t* handle, rd_kafka_resp_err_t error,
                               rd_kafka_topic_partition_list_t* offsets, void* opaque);
  static void on_error(rd_kafka_t* handle, int error, const char* reason, void* opaque);

  ConsumerOptions options_;
  RdKafkaHandle consumer_;
  std::unique_ptr<DeadLetterPublisher> dead_letters_;
  std::unique_ptr<MysqlSession> session_;
  bool session_was_lost_ = false;
  PartitionHolds holds_;
  std::unique_ptr<PartitionPositions> positions_;
  std::string fatal_error_;  // set by on_error
  ConsumerStats stats_;
  std::chrono::steady_clock::time_point next_progress_;
};

}  // namespace outbox::consumer
