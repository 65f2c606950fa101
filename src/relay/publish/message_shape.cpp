#include "publish/message_shape.hpp"

#include <algorithm>

namespace outbox {
namespace {

size_t index_of(const std::vector<std::string>& columns, const std::string& column) {
  return static_cast<size_t>(std::find(columns.begin(), columns.end(), column) - columns.begin());
}

// The value of OutboxEvent::columns[index], or nullptr for NULL (or a row read without it).
const std::string* column_value(const OutboxEvent& event, size_t index) {
  if (index >= event.columns.size() || !event.columns[index]) return nullptr;
  return &*event.columns[index];
}

}  // namespace

std::string rfc3339_utc(std::string_view mysql_time) {
  // "2026-12-06 10:00:00.123456" as the relay's UTC session reads a TIMESTAMP(6) (or a DATETIME,
  // taken as UTC): RFC 3339 wants the 'T' and a zone.
  std::string time(mysql_time);
  if (time.size() > 10 && time[10] == ' ') time[10] = 'T';
  return time + "Z";
}

bool is_json_null(std::string_view payload) {
  constexpr std::string_view kJsonWhitespace = " \t\n\r";
  const size_t begin = payload.find_first_not_of(kJsonWhitespace);
  if (begin == std::string_view::npos) return false;
  const size_t end = payload.find_last_not_of(kJsonWhitespace);
  return payload.substr(begin, end - begin + 1) == "null";
}

MessageShape::MessageShape(MessageSettings settings) : settings_(std::move(settings)) {
  const std::vector<std::string> columns = message_columns(settings_);
  if (settings_.key_column != "aggregate_id") {
    key_column_ = index_of(columns, settings_.key_column);
  }
  if (settings_.profile == MessageProfile::kCloudEvents) {
    time_column_ = index_of(columns, kCloudEventsTimeColumn);
  }
  // W3C trace context under the header names OpenTelemetry's Kafka instrumentation uses, and
  // for CloudEvents also as its distributed-tracing extension (ce_traceparent, ce_tracestate).
  if (settings_.trace_context) {
    for (const char* name : {"traceparent", "tracestate"}) {
      headers_.push_back({name, "", index_of(columns, name)});
      if (settings_.profile == MessageProfile::kCloudEvents) {
        headers_.push_back(
            {std::string(kCloudEventsHeaderPrefix) + name, "", index_of(columns, name)});
      }
    }
  }
  for (const HeaderSetting& header : settings_.headers) {
    if (header.column.empty()) {
      headers_.push_back({header.name, header.value, std::nullopt});
    } else {
      headers_.push_back({header.name, "", index_of(columns, header.column)});
    }
  }
}

void MessageShape::add_cloudevents_attributes(rd_kafka_headers_t* headers,
                                              const OutboxEvent& event) const {
  // The order of kCloudEventsAttributes; the data (the payload) is JSON, as the outbox stores it.
  const auto attribute = [&](const char* name, std::string_view value) {
    add_header(headers, std::string(kCloudEventsHeaderPrefix) + name, value);
  };
  attribute("specversion", "1.0");
  attribute("id", event.event_id);
  attribute("source", settings_.cloudevents_source);
  attribute("type", event.event_type);
  if (const std::string* created = time_column_ ? column_value(event, *time_column_) : nullptr)
    attribute("time", rfc3339_utc(*created));
  attribute("subject", event.aggregate_id);
  attribute("aggregatetype", event.aggregate_type);
  attribute("eventversion", std::to_string(event.event_version));
  add_header(headers, kCloudEventsContentType, "application/json");
}

std::string_view MessageShape::key(const OutboxEvent& event) const {
  if (!key_column_) return event.aggregate_id;
  const std::string* value = column_value(event, *key_column_);
  return value == nullptr ? std::string_view() : std::string_view(*value);
}

bool MessageShape::is_tombstone(const OutboxEvent& event) const {
  return settings_.tombstones && is_json_null(event.payload);
}

std::string_view MessageShape::value(const OutboxEvent& event) const {
  if (is_tombstone(event)) return {};
  return event.payload;
}

RdKafkaHeaders MessageShape::headers(const OutboxEvent& event) const {
  RdKafkaHeaders headers(rd_kafka_headers_new(9 + headers_.size()));
  if (settings_.profile == MessageProfile::kDebezium) {
    add_header(headers.get(), "id", event.event_id);
  } else if (settings_.profile == MessageProfile::kCloudEvents) {
    add_cloudevents_attributes(headers.get(), event);
  } else {
    add_header(headers.get(), "event_id", event.event_id);
    add_header(headers.get(), "event_type", event.event_type);
    add_header(headers.get(), "event_version", std::to_string(event.event_version));
    add_header(headers.get(), "aggregate_type", event.aggregate_type);
  }
  for (const HeaderSource& header : headers_) {
    if (!header.column) {
      add_header(headers.get(), header.name, header.value);
    } else if (const std::string* value = column_value(event, *header.column)) {
      add_header(headers.get(), header.name, *value);
    }
  }
  return headers;
}

}  // namespace outbox
