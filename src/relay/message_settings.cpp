#include "message_settings.hpp"

#include <algorithm>
#include <optional>
#include <set>

namespace outbox {
namespace {

constexpr const char* kOutboxRelayProfile = "outbox-relay";
constexpr const char* kDebeziumProfile = "debezium";

// Kafka allows any bytes in a header name; these refuse only what is surely a mistake (an
// empty name, control characters that no log or tool shows).
std::optional<std::string> header_name_problem(const std::string& name) {
  if (name.empty()) return "a header name must not be empty";
  for (const char c : name) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      return "a header name must not contain control characters";
    }
  }
  return std::nullopt;
}

HeaderSetting read_header(YamlSection& headers, const std::string& name,
                          const std::vector<std::string>& reserved, MessageProfile profile) {
  HeaderSetting header{name, "", headers.line_of(name)};
  const std::string path = headers.path_of(name);
  if (const auto problem = header_name_problem(name)) {
    headers.problem_at(header.line, path, *problem);
  } else if (std::find(reserved.begin(), reserved.end(), name) != reserved.end()) {
    headers.problem_at(header.line, path,
                       std::string("is a header the relay sets itself (kafka.profile: ") +
                           profile_name(profile) + "); choose another name");
  }
  // A scalar or a list is reported by section() as "must be a mapping"; an empty or null entry
  // lacks its value.
  const bool lacks_value = headers.is_mapping(name) || !headers.has(name);
  YamlSection entry = headers.section(name);
  const std::optional<std::string> value = entry.optional_string("value");
  if (value) {
    header.value = *value;
  } else if (lacks_value) {
    headers.problem_at(header.line, path, "needs value: (the header's fixed value)");
  }
  entry.reject_unknown_keys();
  return header;
}

}  // namespace

const char* default_topic_template(MessageProfile profile) {
  // Debezium: route.topic.replacement's default outbox.event.${routedByValue}, routed by
  // aggregatetype (our aggregate_type).
  return profile == MessageProfile::kDebezium ? "outbox.event.{aggregate_type}"
                                              : "outbox.{aggregate_type}";
}

const char* profile_name(MessageProfile profile) {
  return profile == MessageProfile::kDebezium ? kDebeziumProfile : kOutboxRelayProfile;
}

std::vector<std::string> profile_header_names(MessageProfile profile) {
  if (profile == MessageProfile::kDebezium) return {"id"};
  return {"event_id", "event_type", "event_version", "aggregate_type"};
}

MessageSettings read_message_settings(YamlSection& kafka) {
  MessageSettings message;
  message.profile = kafka.choice("profile", kOutboxRelayProfile,
                                 {kOutboxRelayProfile, kDebeziumProfile}) == kDebeziumProfile
                        ? MessageProfile::kDebezium
                        : MessageProfile::kOutboxRelay;
  message.tombstones = kafka.boolean("tombstones", false);
  YamlSection headers = kafka.section("headers");
  const std::vector<std::string> reserved = profile_header_names(message.profile);
  std::set<std::string> seen;
  for (const std::string& name : headers.keys()) {
    if (!seen.insert(name).second) continue;  // reject_unknown_keys reports it
    message.headers.push_back(read_header(headers, name, reserved, message.profile));
  }
  headers.reject_unknown_keys();
  return message;
}

void emit_message_settings(const MessageSettings& message, YAML::Emitter& out) {
  out << YAML::Key << "profile" << YAML::Value << profile_name(message.profile);
  out << YAML::Key << "headers" << YAML::Value << YAML::BeginMap;
  for (const HeaderSetting& header : message.headers) {
    out << YAML::Key << header.name << YAML::Value << YAML::Flow << YAML::BeginMap;
    out << YAML::Key << "value" << YAML::Value << header.value;
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
  out << YAML::Key << "tombstones" << YAML::Value << message.tombstones;
}

}  // namespace outbox
