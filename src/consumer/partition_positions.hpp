#pragma once

#include <librdkafka/rdkafka.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <set>

#include "config/duration.hpp"
#include "consumer_stats.hpp"
#include "partition_holds.hpp"

namespace outbox::consumer {

// The consumer's hand on its partitions' positions in librdkafka: acknowledging (committing
// offsets) and holding a partition at a message. Used from the consumer's thread only.
class PartitionPositions {
 public:
  using Clock = std::chrono::steady_clock;

  // `commit_interval`: how long acknowledged offsets may wait to be committed together (0:
  // as soon as no other commit is in flight).
  PartitionPositions(rd_kafka_t* consumer, ConsumerStats& stats, Micros commit_interval);
  ~PartitionPositions();
  PartitionPositions(const PartitionPositions&) = delete;
  PartitionPositions& operator=(const PartitionPositions&) = delete;

  // Records that offset + 1 is where the partition resumes (called only after the message's
  // database commit); committed asynchronously with the others acknowledged meanwhile, at most
  // every commit_interval and with at most one asynchronous commit in flight. One commit
  // request per message would queue up on the group coordinator's connection on a real broker
  // (each waits for its replicated write) and hold the heartbeats back until the session times
  // out: measured, a rebalance every few seconds. A lost acknowledgement only means a
  // redelivery, which uq_consumed_event_identity turns into "already consumed".
  void acknowledge(const TopicPartition& partition, int64_t offset);
  // Serves the answers to asynchronous commits (on_offset_commit) and sends the offsets
  // acknowledged since, once commit_interval passed; called on every pass of the loop.
  void serve_commit_results(Clock::time_point now);

  // Commits the acknowledged offsets of `partitions` and waits for the answer: before a
  // revocation, so the next owner starts after them.
  void commit_acknowledged(const rd_kafka_topic_partition_list_t* partitions);

  // Stops fetching `partition` and rewinds it to `offset`, so that resuming delivers that
  // message first. Pause first: a pause resets the fetch position to the message after the
  // last one delivered, which would undo an earlier rewind.
  void pause_and_rewind(const TopicPartition& partition, int64_t offset);
  void resume(const TopicPartition& partition);

  // The partition is no longer this member's.
  void forget(const TopicPartition& partition) {
    acknowledged_.erase(partition);
    unsent_.erase(partition);
  }

  // The offset_commit_cb's work: count failures, one log line per change of state. Returns
  // whether the commit succeeded.
  bool on_offset_commit(rd_kafka_resp_err_t error, const rd_kafka_topic_partition_list_t* offsets);

 private:
  struct QueueDeleter {
    void operator()(rd_kafka_queue_t* queue) const { rd_kafka_queue_destroy(queue); }
  };
  // Sends the acknowledged offsets not sent yet, unless a commit is in flight or the interval
  // since the last one has not passed.
  void send_unsent(Clock::time_point now);
  // Marks the partitions of the failed commit unsent again, to be sent after kCommitRetryDelay.
  void send_again(Clock::time_point now);
  // librdkafka's callback for an asynchronous commit (served from commit_results_).
  static void on_async_commit(rd_kafka_t* handle, rd_kafka_resp_err_t error,
                              rd_kafka_topic_partition_list_t* offsets, void* opaque);

  rd_kafka_t* consumer_;
  ConsumerStats& stats_;
  std::map<TopicPartition, int64_t> acknowledged_;  // next offset to commit, per partition
  std::set<TopicPartition> unsent_;                 // acknowledged since the last commit sent
  std::set<TopicPartition> in_flight_;              // in the last asynchronous commit sent
  // Where the answers to asynchronous commits arrive; destroyed before the handle.
  std::unique_ptr<rd_kafka_queue_t, QueueDeleter> commit_results_;
  bool commit_in_flight_ = false;
  Micros commit_interval_;
  Clock::time_point next_commit_{};
  bool commits_failing_ = false;
};

// "topic/partition, ..." for log lines.
std::string describe_partitions(const rd_kafka_topic_partition_list_t* partitions);

}  // namespace outbox::consumer
