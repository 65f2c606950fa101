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
// aggregate_type, plus traceparent / tracestate (W3C trace context) when the writer stored one.
struct ReceivedEvent {
  std::string event_id;  // from the event_id header, validated
  std::string topic;
  int32_t partition = -1;
  int64_t offset = -1;
  std::string key;
  std::string payload;
  // The message had no value (a tombstone: kafka.tombstones on the relay); payload is empty.
  bool null_value = false;
  // Every header in message order; a header without a value has an empty one.
  std::vector<std::pair<std::string, std::string>> headers;

  // The value of the last header called `name`, or nullptr.
  const std::string* header(std::string_view name) const;
  // The W3C trace context headers, or nullptr. traceparent is as received: trace_id() says
  // whether it is well-formed.
  const std::string* traceparent() const { return header("traceparent"); }
  const std::string* tracestate() const { return header("tracestate"); }
  // The trace id of a well-formed traceparent header (32 hex digits), or "".
  std::string trace_id() const;
  // "topic/partition@offset", for log lines.
  std::string position() const;
};

// A copy of a consumed message's topic, partition, offset, key, value and headers; event_id is
// left empty (it is read and validated from the headers separately).
ReceivedEvent received_event_from(const rd_kafka_message_t& message);

}  // namespace outbox::consumer
