#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kafka/rdkafka_handles.hpp"
#include "outbox_event.hpp"
#include "publish/message_settings.hpp"

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
//
// kafka.profile: cloudevents follows CloudEvents 1.0's Kafka protocol binding in binary content
// mode (github.com/cloudevents/spec, cloudevents/bindings/kafka-protocol-binding.md, 3.2): the
// value is the event's data as is (the payload), `content-type` its media type
// (application/json), every other attribute a header "ce_<name>": specversion 1.0, id =
// event_id, source = kafka.cloudevents_source, type = event_type, time = created_at (RFC 3339),
// subject = aggregate_id, and the extensions aggregatetype and eventversion; with the trace
// context, the distributed-tracing extension (ce_traceparent, ce_tracestate) beside the plain
// W3C headers. The key stays aggregate_id (the binding's key mapping leaves it to the
// producer), so per-aggregate order is kept as under the other profiles.
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

  // ce_specversion .. ce_eventversion and content-type (profile cloudevents).
  void add_cloudevents_attributes(rd_kafka_headers_t* headers, const OutboxEvent& event) const;

  MessageSettings settings_;
  std::optional<size_t> key_column_;   // index into OutboxEvent::columns; none: aggregate_id
  std::optional<size_t> time_column_;  // created_at's index (profile cloudevents)
  std::vector<HeaderSource> headers_;
};

// A MySQL DATETIME/TIMESTAMP text in UTC ("2026-12-06 10:00:00.123456") as RFC 3339
// ("2026-12-06T10:00:00.123456Z"): CloudEvents' `time`.
std::string rfc3339_utc(std::string_view mysql_time);

// Whether `payload` is the JSON document `null` (surrounding JSON whitespace allowed).
bool is_json_null(std::string_view payload);

}  // namespace outbox
