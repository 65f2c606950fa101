#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kafka/rdkafka_handles.hpp"
#include "message_settings.hpp"
#include "outbox_event.hpp"

namespace outbox {

// What a claimed row becomes on Kafka besides its topic (TopicRouter): key, value and
// headers, by kafka.profile, kafka.key_column, kafka.headers, kafka.trace_context and
// kafka.tombstones. Column values come from OutboxEvent::columns, in the order of
// message_columns(settings).
//
// kafka.profile: debezium reproduces the messages of Debezium's Outbox Event Router (the
// io.debezium.transforms.outbox.EventRouter SMT) with its default configuration, as its
// documentation describes them:
//   https://debezium.io/documentation/reference/stable/transformations/outbox-event-router.html
//   (source: github.com/debezium/debezium, documentation/modules/ROOT/pages/transformations/
//   outbox-event-router.adoc, sections "Basic outbox table" and "Configuration options")
// mapped onto this outbox's columns (Debezium's id, aggregatetype, aggregateid, payload are our
// event_id, aggregate_type, aggregate_id, payload):
//   - key: table.field.event.key = aggregateid              -> aggregate_id (kafka.key_column)
//   - header `id`: table.field.event.id = id ("stored in the emitted event's headers under
//     the id key")                                          -> event_id
//   - topic: route.topic.replacement = outbox.event.${routedByValue}, route.by.field =
//     aggregatetype                     -> outbox.event.{aggregate_type} (message_settings.cpp)
//   - value: "solely comprised of the payload value"        -> payload, as stored
//   - no other header: table.fields.additional.placement (column:placement:alias) is empty by
//     default; its documented example type:header:eventType (the type column as header
//     eventType) is kafka.headers: {eventType: {column: event_type}}.
//   - tombstones: route.tombstone.on.empty.payload defaults to false, as kafka.tombstones.
class MessageShape {
 public:
  explicit MessageShape(MessageSettings settings);

  // The message key: aggregate_id, or kafka.key_column's value; a view with data() == nullptr
  // when that column is NULL (a message without a key). A view into `event`.
  std::string_view key(const OutboxEvent& event) const;
  // The message value: the payload, or a view with data() == nullptr for a tombstone (a null
  // value, not an empty one).
  std::string_view value(const OutboxEvent& event) const;
  bool is_tombstone(const OutboxEvent& event) const;
  // The profile's headers, then traceparent / tracestate when the row has them, then
  // kafka.headers in file order; a header from a NULL column is left out.
  RdKafkaHeaders headers(const OutboxEvent& event) const;

 private:
  // A header after the profile's: a fixed value, or the value of OutboxEvent::columns[column].
  struct HeaderSource {
    std::string name;
    std::string value;
    std::optional<size_t> column;
  };

  MessageSettings settings_;
  std::optional<size_t> key_column_;  // index into OutboxEvent::columns; none: aggregate_id
  std::vector<HeaderSource> headers_;
};

// Whether `payload` is the JSON document `null` (surrounding JSON whitespace allowed).
bool is_json_null(std::string_view payload);

}  // namespace outbox
