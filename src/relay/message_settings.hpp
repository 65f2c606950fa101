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
};

// One entry of kafka.headers: a header every message carries, with a fixed value.
struct HeaderSetting {
  std::string name;
  std::string value;
  int line = 0;
};

// How the relay shapes each message beyond its topic (kafka.profile, kafka.headers,
// kafka.tombstones).
struct MessageSettings {
  MessageProfile profile = MessageProfile::kOutboxRelay;
  std::vector<HeaderSetting> headers;  // in file order, after the profile's own headers
  // A payload that is JSON null is sent as a null value: the delete marker (tombstone) of a
  // compacted topic.
  bool tombstones = false;
};

// The default topic template of a profile (when kafka.topic is not set).
const char* default_topic_template(MessageProfile profile);
const char* profile_name(MessageProfile profile);

// The names of the headers the relay itself sets under `profile`: kafka.headers may not
// reuse them (a second event_id header makes a message's identity ambiguous).
std::vector<std::string> profile_header_names(MessageProfile profile);

// Reads kafka.profile, kafka.headers and kafka.tombstones from the kafka section.
MessageSettings read_message_settings(YamlSection& kafka);

// Writes them as keys of the open kafka mapping.
void emit_message_settings(const MessageSettings& message, YAML::Emitter& out);

}  // namespace outbox
