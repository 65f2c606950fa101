#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "config/yaml_section.hpp"

namespace outbox {

// kafka.profile: the shape of every message.
enum class MessageProfile {
  // key = aggregate_id, value = payload, headers event_id, event_type, event_version,
  // aggregate_type; topic outbox.{aggregate_type}.
  kOutboxRelay,
  // Debezium's Outbox Event Router with its default configuration (message_shape.hpp): key =
  // aggregate_id, value = payload, one header `id` = event_id; topic
  // outbox.event.{aggregate_type}.
  kDebezium,
  // CloudEvents 1.0 in the Kafka protocol binding's binary content mode (message_shape.hpp):
  // key = aggregate_id, value = payload (the event's data), its attributes as ce_* headers and
  // content-type; topic outbox.{aggregate_type}.
  kCloudEvents,
};

// One entry of kafka.headers: a header every message carries, with a fixed value or the value
// of a column of the outbox table (a NULL omits the header).
struct HeaderSetting {
  std::string name;
  std::string value;   // {value: ...}
  std::string column;  // {column: ...}; when set, the header comes from this column
  int line = 0;
};

// How the relay shapes each message beyond its topic (kafka.profile, kafka.key_column,
// kafka.headers, kafka.trace_context, kafka.tombstones).
struct MessageSettings {
  MessageProfile profile = MessageProfile::kOutboxRelay;
  // The column whose value is the message key. Per-aggregate ordering still follows
  // (aggregate_type, aggregate_id), whatever the key.
  std::string key_column = "aggregate_id";
  int key_column_line = 0;
  std::vector<HeaderSetting> headers;  // in file order, after the profile's own headers
  // kafka.cloudevents_source: every event's CloudEvents `source` (a URI-reference), with
  // profile cloudevents only.
  std::string cloudevents_source = "/outbox-relay";
  int profile_line = 0;
  // The traceparent / tracestate columns (sql/012) go out as the headers of the same names.
  bool trace_context = true;
  int trace_context_line = 0;
  // A payload that is JSON null is sent as a null value: the delete marker (tombstone) of a
  // compacted topic.
  bool tombstones = false;
};

// A column of the outbox table that the configuration names, with the key that names it, for
// the start-up check against the live table.
struct ColumnUse {
  std::string column;
  std::string key_path;  // kafka.profile, kafka.key_column, kafka.headers.<name>, ...
  int line = 0;
};

// The columns the claim reads for the message beyond the fixed ones (OutboxEvent::columns),
// each once, in this order: created_at for profile cloudevents (its `time`), a key column
// other than aggregate_id, traceparent and tracestate, then the header columns in file order.
std::vector<std::string> message_columns(const MessageSettings& message);
// Every use of a column by the message settings, in the same order (a column used twice is
// listed twice).
std::vector<ColumnUse> message_column_uses(const MessageSettings& message);

// The default topic template of a profile (when kafka.topic is not set).
const char* default_topic_template(MessageProfile profile);
const char* profile_name(MessageProfile profile);

// The names of the headers the relay itself sets (the profile's, and traceparent / tracestate
// with trace_context): kafka.headers may not reuse them (a second event_id header makes a
// message's identity ambiguous).
std::vector<std::string> reserved_header_names(MessageProfile profile, bool trace_context);

// CloudEvents 1.0's Kafka protocol binding, binary content mode: each attribute is a header
// "ce_<attribute>", the data's media type is content-type. The attributes the relay sets, in
// the order it sets them: the required ones, then time and subject, then two extensions that
// carry the outbox row's aggregate type and version (lowercase a-z0-9, as the spec asks of
// extension names).
inline constexpr const char* kCloudEventsHeaderPrefix = "ce_";
inline constexpr const char* kCloudEventsContentType = "content-type";
inline constexpr const char* kCloudEventsAttributes[] = {
    "specversion", "id", "source", "type", "time", "subject", "aggregatetype", "eventversion"};
// The column whose value is `time` (RFC 3339, UTC: the relay's sessions run in UTC).
inline constexpr const char* kCloudEventsTimeColumn = "created_at";

// The header `outboxctl replay` adds to every message it publishes again, beside the ones the
// first publication had: which replay sent it ("2026-12-06T10:00:00.123Z alice@ops-1").
// Reserved in every profile, so a kafka.headers entry cannot forge or hide it.
inline constexpr const char* kReplayHeader = "outbox_replay";

// Reads the message settings from the kafka section.
MessageSettings read_message_settings(YamlSection& kafka);

// Writes them as keys of the open kafka mapping.
void emit_message_settings(const MessageSettings& message, YAML::Emitter& out);

}  // namespace outbox
