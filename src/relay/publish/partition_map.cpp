#include "publish/partition_map.hpp"

#include <spdlog/spdlog.h>

#include <memory>

namespace outbox {

bool PartitionMap::computable_partitioner(const std::string& partitioner) {
  // murmur2_random differs from murmur2 only for a null key, which is never computed.
  return partitioner == "murmur2" || partitioner == "murmur2_random";
}

void PartitionMap::learn(rd_kafka_t* producer, const std::string& topic,
                         std::chrono::milliseconds timeout) {
  if (!computable_ || producer == nullptr) return;
  const std::unique_ptr<rd_kafka_topic_t, decltype(&rd_kafka_topic_destroy)> handle(
      rd_kafka_topic_new(producer, topic.c_str(), nullptr), &rd_kafka_topic_destroy);
  if (!handle) return;
  const rd_kafka_metadata_t* metadata = nullptr;
  const rd_kafka_resp_err_t error =
      rd_kafka_metadata(producer, 0, handle.get(), &metadata, static_cast<int>(timeout.count()));
  if (error != RD_KAFKA_RESP_ERR_NO_ERROR) {
    spdlog::warn(
        "cannot learn the partitions of topic {} ({}): its paused partition's events "
        "are held only once their delivery fails",
        topic, rd_kafka_err2name(error));
    return;
  }
  const std::unique_ptr<const rd_kafka_metadata_t, decltype(&rd_kafka_metadata_destroy)> owned(
      metadata, &rd_kafka_metadata_destroy);
  for (int i = 0; i < metadata->topic_cnt; ++i) {
    const rd_kafka_metadata_topic_t& found = metadata->topics[i];
    if (topic != found.topic || found.err != RD_KAFKA_RESP_ERR_NO_ERROR || found.partition_cnt <= 0)
      continue;
    std::lock_guard lock(mutex_);
    counts_[topic] = found.partition_cnt;
  }
}

std::optional<int32_t> PartitionMap::partition(const std::string& topic,
                                               std::string_view key) const {
  if (!computable_ || key.data() == nullptr) return std::nullopt;
  int32_t count = 0;
  {
    std::lock_guard lock(mutex_);
    const auto found = counts_.find(topic);
    if (found == counts_.end()) return std::nullopt;
    count = found->second;
  }
  // librdkafka's own murmur2 partitioner, so the answer is the producer's: for a non-null key
  // it reads neither the topic handle nor the opaques.
  return rd_kafka_msg_partitioner_murmur2(nullptr, key.data(), key.size(), count, nullptr, nullptr);
}

}  // namespace outbox
