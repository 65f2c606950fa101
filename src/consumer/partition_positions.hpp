#pragma once

#include <librdkafka/rdkafka.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <set>

#include "consumer_stats.hpp"
#include "partition_holds.hpp"

namespace outbox::consumer {

// The consumer's hand on its partitions' positions in librdkafka: acknowledging (committing
// offsets) and holding a partition at a message. Used from the consumer's thread only.
class PartitionPositions {
 public:
  using Clock = std::chrono::steady_clock;

  // `commit_interval`: how long acknowledged offsets may wait to be committed together (0:
  // each at once).
  PartitionPositions(rd_kafka_t* consumer, ConsumerStats& stats, Micros commit_interval)
      : consumer_(consumer), stats_(stats), commit_interval_(commit_interval) {}

  // Records that offset + 1 is where the partition resumes: committed by the next
  // commit_due() (asynchronously; the result arrives in on_offset_commit()). Called only after
  // the message's database commit. A lost acknowledgement only means a redelivery, which
  // uq_consumed_event_identity turns into "already consumed".
  void acknowledge(const TopicPartition& partition, int64_t offset);
  // One asynchronous commit of every offset acknowledged since the last one, once
  // commit_interval has passed since that one.
  void commit_due(Clock::time_point now);

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
    uncommitted_.erase(partition);
  }

  // The offset_commit_cb's work: count failures, one log line per change of state.
  void on_offset_commit(rd_kafka_resp_err_t error, const rd_kafka_topic_partition_list_t* offsets);

 private:
  rd_kafka_t* consumer_;
  ConsumerStats& stats_;
  void commit_uncommitted(Clock::time_point now);

  Micros commit_interval_;
  std::map<TopicPartition, int64_t> acknowledged_;  // next offset to commit, per partition
  std::set<TopicPartition> uncommitted_;            // acknowledged since the last commit
  Clock::time_point next_commit_{};
  bool commits_failing_ = false;
};

// "topic/partition, ..." for log lines.
std::string describe_partitions(const rd_kafka_topic_partition_list_t* partitions);

}  // namespace outbox::consumer
