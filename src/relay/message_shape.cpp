#include "message_shape.hpp"

#include <string>

namespace outbox {

bool is_json_null(std::string_view payload) {
  constexpr std::string_view kJsonWhitespace = " \t\n\r";
  const size_t begin = payload.find_first_not_of(kJsonWhitespace);
  if (begin == std::string_view::npos) return false;
  const size_t end = payload.find_last_not_of(kJsonWhitespace);
  return payload.substr(begin, end - begin + 1) == "null";
}

MessageShape::MessageShape(MessageSettings settings) : settings_(std::move(settings)) {}

std::string_view MessageShape::key(const OutboxEvent& event) const {
  return event.aggregate_id;
}

bool MessageShape::is_tombstone(const OutboxEvent& event) const {
  return settings_.tombstones && is_json_null(event.payload);
}

std::string_view MessageShape::value(const OutboxEvent& event) const {
  if (is_tombstone(event)) return {};
  return event.payload;
}

RdKafkaHeaders MessageShape::headers(const OutboxEvent& event) const {
  RdKafkaHeaders headers(rd_kafka_headers_new(6 + settings_.headers.size()));
  if (settings_.profile == MessageProfile::kDebezium) {
    add_header(headers.get(), "id", event.event_id);
  } else {
    add_header(headers.get(), "event_id", event.event_id);
    add_header(headers.get(), "event_type", event.event_type);
    add_header(headers.get(), "event_version", std::to_string(event.event_version));
    add_header(headers.get(), "aggregate_type", event.aggregate_type);
  }
  // W3C trace context under the header names OpenTelemetry's Kafka instrumentation uses.
  if (!event.traceparent.empty()) add_header(headers.get(), "traceparent", event.traceparent);
  if (!event.tracestate.empty()) add_header(headers.get(), "tracestate", event.tracestate);
  for (const HeaderSetting& header : settings_.headers)
    add_header(headers.get(), header.name, header.value);
  return headers;
}

}  // namespace outbox
