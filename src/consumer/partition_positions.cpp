#include "partition_positions.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <utility>

#include "kafka/rdkafka_handles.hpp"

namespace outbox::consumer {
namespace {

// Bound on a rewind: the fetcher acknowledges a seek within this time; past it the rewind's
// state is unknown and PartitionHolds::may_process() keeps the held message from being passed.
constexpr int kSeekTimeoutMs = 10000;

// Wait before resending offsets whose commit failed: the coordinator that refused them (moving,
// timing out) is not asked again on every pass of the loop.
constexpr std::chrono::seconds kCommitRetryDelay{1};

RdKafkaPartitionList partition_list(const TopicPartition& partition, int64_t offset) {
  RdKafkaPartitionList list(rd_kafka_topic_partition_list_new(1));
  rd_kafka_topic_partition_list_add(list.get(), partition.first.c_str(), partition.second)->offset =
      offset;
  return list;
}

}  // namespace

std::string describe_partitions(const rd_kafka_topic_partition_list_t* partitions) {
  std::string text;
  for (int i = 0; i < partitions->cnt; ++i) {
    text += (i == 0 ? "" : ", ") + std::string(partitions->elems[i].topic) + "/" +
            std::to_string(partitions->elems[i].partition);
  }
  return text.empty() ? "none" : text;
}

PartitionPositions::PartitionPositions(rd_kafka_t* consumer, ConsumerStats& stats,
                                       Micros commit_interval)
    : consumer_(consumer),
      stats_(stats),
      commit_results_(rd_kafka_queue_new(consumer)),
      commit_interval_(commit_interval) {}

PartitionPositions::~PartitionPositions() = default;

void PartitionPositions::acknowledge(const TopicPartition& partition, int64_t offset) {
  acknowledged_[partition] = offset + 1;
  unsent_.insert(partition);
  send_unsent(Clock::now());
}

void PartitionPositions::serve_commit_results(Clock::time_point now) {
  rd_kafka_queue_poll_callback(commit_results_.get(), 0);
  send_unsent(now);
}

void PartitionPositions::send_unsent(Clock::time_point now) {
  if (commit_in_flight_ || unsent_.empty() || now < next_commit_) return;
  next_commit_ = now + commit_interval_;
  ++stats_.offset_commits;
  RdKafkaPartitionList list(rd_kafka_topic_partition_list_new(static_cast<int>(unsent_.size())));
  for (const TopicPartition& partition : unsent_) {
    rd_kafka_topic_partition_list_add(list.get(), partition.first.c_str(), partition.second)
        ->offset = acknowledged_.at(partition);
  }
  in_flight_ = std::move(unsent_);
  unsent_.clear();
  if (const rd_kafka_resp_err_t error = rd_kafka_commit_queue(
          consumer_, list.get(), commit_results_.get(), &PartitionPositions::on_async_commit, this);
      error != RD_KAFKA_RESP_ERR_NO_ERROR) {
    ++stats_.offset_commit_failures;
    spdlog::warn("committing offsets of {}: {} (sent again in {}s)",
                 describe_partitions(list.get()), rd_kafka_err2str(error),
                 kCommitRetryDelay.count());
    send_again(now);
    return;
  }
  commit_in_flight_ = true;
}

void PartitionPositions::send_again(Clock::time_point now) {
  // A partition forgotten meanwhile (revoked) is no longer this member's to commit; one
  // acknowledged again meanwhile is already unsent, and is sent with its newer offset.
  for (const TopicPartition& partition : in_flight_) {
    if (acknowledged_.count(partition) != 0) unsent_.insert(partition);
  }
  in_flight_.clear();
  next_commit_ = std::max(next_commit_, now + kCommitRetryDelay);
}

void PartitionPositions::on_async_commit(rd_kafka_t* /*handle*/, rd_kafka_resp_err_t error,
                                         rd_kafka_topic_partition_list_t* offsets, void* opaque) {
  auto* self = static_cast<PartitionPositions*>(opaque);
  self->commit_in_flight_ = false;
  // Without sending them again, the last offsets of a burst whose commit failed would stay
  // uncommitted until the partition's next message: the group's lag would not reach zero on
  // an idle topic, and a restart would redeliver them (found by the chaos soak after injected
  // OffsetCommit errors: every effect applied, the committed offsets short of the end).
  if (!self->on_offset_commit(error, offsets)) self->send_again(Clock::now());
}

void PartitionPositions::commit_acknowledged(const rd_kafka_topic_partition_list_t* partitions) {
  RdKafkaPartitionList list(rd_kafka_topic_partition_list_new(0));
  for (const auto& [partition, offset] : acknowledged_) {
    if (rd_kafka_topic_partition_list_find(partitions, partition.first.c_str(), partition.second) !=
        nullptr) {
      rd_kafka_topic_partition_list_add(list.get(), partition.first.c_str(), partition.second)
          ->offset = offset;
    }
  }
  if (list->cnt == 0) return;
  for (int i = 0; i < list->cnt; ++i)
    unsent_.erase(TopicPartition{list->elems[i].topic, list->elems[i].partition});
  ++stats_.offset_commits;
  if (const rd_kafka_resp_err_t error = rd_kafka_commit(consumer_, list.get(), 0);
      error != RD_KAFKA_RESP_ERR_NO_ERROR) {
    ++stats_.offset_commit_failures;
    spdlog::warn("committing offsets of {}: {} (those messages may be delivered again)",
                 describe_partitions(list.get()), rd_kafka_err2str(error));
  }
}

void PartitionPositions::pause_and_rewind(const TopicPartition& partition, int64_t offset) {
  const RdKafkaPartitionList list = partition_list(partition, offset);
  rd_kafka_pause_partitions(consumer_, list.get());
  if (rd_kafka_error_t* error = rd_kafka_seek_partitions(consumer_, list.get(), kSeekTimeoutMs)) {
    spdlog::warn("rewinding {}/{} to {}: {}", partition.first, partition.second, offset,
                 rd_kafka_error_string(error));
    rd_kafka_error_destroy(error);
  }
}

void PartitionPositions::resume(const TopicPartition& partition) {
  const RdKafkaPartitionList list = partition_list(partition, RD_KAFKA_OFFSET_INVALID);
  rd_kafka_resume_partitions(consumer_, list.get());
}

bool PartitionPositions::on_offset_commit(rd_kafka_resp_err_t error,
                                          const rd_kafka_topic_partition_list_t* offsets) {
  bool failed = error != RD_KAFKA_RESP_ERR_NO_ERROR && error != RD_KAFKA_RESP_ERR__NO_OFFSET;
  for (int i = 0; offsets != nullptr && i < offsets->cnt; ++i) {
    failed = failed || offsets->elems[i].err != RD_KAFKA_RESP_ERR_NO_ERROR;
  }
  if (!failed) {
    if (commits_failing_) spdlog::info("offset commits succeed again");
    commits_failing_ = false;
    return true;
  }
  ++stats_.offset_commit_failures;
  if (!commits_failing_) {
    spdlog::warn(
        "offset commit failed: {} ({}); sent again until it succeeds (a restart meanwhile "
        "redelivers those messages, recognised as already consumed)",
        rd_kafka_err2str(error), offsets != nullptr ? describe_partitions(offsets) : "");
  }
  commits_failing_ = true;
  return false;
}

}  // namespace outbox::consumer
