#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kafka/rdkafka_handles.hpp"
#include "outcome.hpp"
#include "publish/message_shape.hpp"
#include "replay_reader.hpp"
#include "settings/relay_config.hpp"

// The producer of `outboxctl replay`: its own librdkafka producer, not a relay's, with the
// relay's producer properties (kafka.properties, secret files, idempotence, acks=all, the same
// partitioner, so a key lands on the partition its first publication did) and client.id
// outboxctl-replay. Each message is the first publication's (MessageShape: key, value,
// headers) plus the header outbox_replay. Paced to a rate, so a replay takes a bounded share of
// the brokers beside the live flow. One thread: delivery reports are served by this object's
// own polls.
namespace outbox::ctl {

// A replayed event the brokers did not take.
struct ReplayFailure {
  std::string event_id;
  std::string error;
};

struct ChunkOutcome {
  size_t delivered = 0;
  std::vector<ReplayFailure> failed;
};

class ReplayProducer {
 public:
  static Outcome<std::unique_ptr<ReplayProducer>> create(const KafkaSettings& kafka,
                                                         std::string replay_id, int64_t rate);
  ~ReplayProducer();
  ReplayProducer(const ReplayProducer&) = delete;
  ReplayProducer& operator=(const ReplayProducer&) = delete;

  // A metadata request answered: the brokers are reachable with these credentials.
  Status probe(std::chrono::milliseconds timeout);

  // Publishes each row to its topic in that order, paced, and waits for every delivery report
  // (each comes within message.timeout.ms). On one producer with idempotence, the messages of
  // a partition land in the order they were handed over.
  ChunkOutcome send(const std::vector<ReplayRow>& rows);

  // Seconds spent waiting for the rate limit so far.
  double paced_seconds() const { return paced_seconds_; }

 private:
  ReplayProducer(MessageShape shape, std::string replay_id, int64_t rate);
  static void on_delivery(rd_kafka_t* handle, const rd_kafka_message_t* message, void* opaque);
  static void on_error(rd_kafka_t* handle, int error, const char* reason, void* opaque);
  // Waits until the rate allows one more message, serving reports meanwhile.
  void pace();

  MessageShape shape_;
  std::string replay_id_;
  int64_t rate_;
  RdKafkaHandle handle_;
  // The chunk being sent: its reports land here (poll runs on this thread).
  ChunkOutcome* current_ = nullptr;
  const std::vector<ReplayRow>* current_rows_ = nullptr;
  size_t outstanding_ = 0;
  std::chrono::steady_clock::time_point started_;
  int64_t sent_ = 0;
  double paced_seconds_ = 0;
  std::string last_error_;  // the last error callback, for a probe that fails
};

}  // namespace outbox::ctl
