#pragma once

#include <librdkafka/rdkafka.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace outbox {

// The partition librdkafka's murmur2 partitioner (the relay's default, the Java client's
// mapping) will give a keyed message, computed before it is sent: for holding a paused
// partition's events back without sending them. Needs the topic's partition count, asked of
// the cluster when a partition of the topic is paused (learn) and kept until the next ask.
class PartitionMap {
 public:
  // `computable`: the producer's partitioner is murmur2 or murmur2_random; with any other
  // (a user's kafka.properties choice) nothing can be computed ahead and partition() is empty.
  explicit PartitionMap(bool computable) : computable_(computable) {}

  // Asks the cluster through `producer` how many partitions `topic` has (up to `timeout`).
  void learn(rd_kafka_t* producer, const std::string& topic, std::chrono::milliseconds timeout);
  // The partition of a message with `key` (data() == nullptr: a null key, spread at random,
  // so unknown) on `topic`, if the topic's partition count was learnt.
  std::optional<int32_t> partition(const std::string& topic, std::string_view key) const;

  // Whether librdkafka's `partitioner` property value lets the partition be computed ahead.
  static bool computable_partitioner(const std::string& partitioner);

 private:
  bool computable_;
  mutable std::mutex mutex_;
  std::map<std::string, int32_t> counts_;
};

}  // namespace outbox
