#pragma once

#include <librdkafka/rdkafka.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace outbox::consumer {

// One Kafka message as the consumer hands it to a handler. The relay publishes key =
// aggregate_id, value = payload and the headers event_id, event_type, event_version,
// aggregate_type.
struct ReceivedEvent {
  std::string event_id;  // from the event_id header, validated
  std::string topic;
  int32_t partition = -1;
  int64_t offset = -1;
  std::string key;
  std::string payload;
  // Every header in message order; a header without a value has an empty one.
  std::vector<std::pair<std::string, std::string>> headers;

  // The value of the last header called `name`, or nullptr.
  const std::string* header(std::string_view name) const;
  // "topic/partition@offset", for log lines.
  std::string position() const;
};

// A copy of a consumed message's topic, partition, offset, key, value and headers; event_id is
// left empty (it is read and validated from the headers separately).
ReceivedEvent received_event_from(const rd_kafka_message_t& message);

}  // namespace outbox::consumer
