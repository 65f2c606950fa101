#include "publish/message_settings.hpp"

#include <algorithm>
#include <optional>
#include <set>

#include "mysql/sql_identifier.hpp"

namespace outbox {
namespace {

constexpr const char* kOutboxRelayProfile = "outbox-relay";
constexpr const char* kDebeziumProfile = "debezium";
constexpr const char* kCloudEventsProfile = "cloudevents";
constexpr const char* kTraceparent = "traceparent";
constexpr const char* kTracestate = "tracestate";

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
  HeaderSetting header{name, "", "", headers.line_of(name)};
  const std::string path = headers.path_of(name);
  if (const auto problem = header_name_problem(name)) {
    headers.problem_at(header.line, path, *problem);
  } else if (std::find(reserved.begin(), reserved.end(), name) != reserved.end()) {
    headers.problem_at(header.line, path,
                       std::string("is a header the relay sets itself (kafka.profile: ") +
                           profile_name(profile) + "); choose another name");
  }
  // A scalar or a list is reported by section() as "must be a mapping"; an empty or null entry
  // lacks its source.
  const bool lacks_source = headers.is_mapping(name) || !headers.has(name);
  YamlSection entry = headers.section(name);
  const std::optional<std::string> value = entry.optional_string("value");
  const std::optional<std::string> column = entry.optional_string("column");
  if (value && column) {
    entry.problem("column", "set either value: or column:, not both");
  } else if (column) {
    header.column = *column;
    if (const auto problem = identifier_problem(*column)) entry.problem("column", *problem);
  } else if (value) {
    header.value = *value;
  } else if (lacks_source) {
    headers.problem_at(header.line, path,
                       "needs value: (a fixed value) or column: (a column of the outbox table)");
  }
  entry.reject_unknown_keys();
  return header;
}

}  // namespace

std::vector<ColumnUse> message_column_uses(const MessageSettings& message) {
  std::vector<ColumnUse> uses;
  if (message.profile == MessageProfile::kCloudEvents) {
    uses.push_back({kCloudEventsTimeColumn, "kafka.profile", message.profile_line});
  }
  if (message.key_column != "aggregate_id") {
    uses.push_back({message.key_column, "kafka.key_column", message.key_column_line});
  }
  if (message.trace_context) {
    uses.push_back({kTraceparent, "kafka.trace_context", message.trace_context_line});
    uses.push_back({kTracestate, "kafka.trace_context", message.trace_context_line});
  }
  for (const HeaderSetting& header : message.headers) {
    if (!header.column.empty()) {
      uses.push_back({header.column, "kafka.headers." + header.name, header.line});
    }
  }
  return uses;
}

std::vector<std::string> message_columns(const MessageSettings& message) {
  std::vector<std::string> columns;
  for (const ColumnUse& use : message_column_uses(message)) {
    if (std::find(columns.begin(), columns.end(), use.column) == columns.end()) {
      columns.push_back(use.column);
    }
  }
  return columns;
}

const char* default_topic_template(MessageProfile profile) {
  // Debezium: route.topic.replacement's default outbox.event.${routedByValue}, routed by
  // aggregatetype (our aggregate_type).
  return profile == MessageProfile::kDebezium ? "outbox.event.{aggregate_type}"
                                              : "outbox.{aggregate_type}";
}

const char* profile_name(MessageProfile profile) {
  switch (profile) {
    case MessageProfile::kDebezium:
      return kDebeziumProfile;
    case MessageProfile::kCloudEvents:
      return kCloudEventsProfile;
    case MessageProfile::kOutboxRelay:
      break;
  }
  return kOutboxRelayProfile;
}

std::vector<std::string> reserved_header_names(MessageProfile profile, bool trace_context) {
  std::vector<std::string> names;
  switch (profile) {
    case MessageProfile::kDebezium:
      names = {"id"};
      break;
    case MessageProfile::kCloudEvents:
      names = {kCloudEventsContentType};
      for (const char* attribute : kCloudEventsAttributes)
        names.push_back(std::string(kCloudEventsHeaderPrefix) + attribute);
      if (trace_context) {
        names.push_back(std::string(kCloudEventsHeaderPrefix) + kTraceparent);
        names.push_back(std::string(kCloudEventsHeaderPrefix) + kTracestate);
      }
      break;
    case MessageProfile::kOutboxRelay:
      names = {"event_id", "event_type", "event_version", "aggregate_type"};
      break;
  }
  if (trace_context) names.insert(names.end(), {kTraceparent, kTracestate});
  names.emplace_back(kReplayHeader);
  return names;
}

std::optional<std::string> cloudevents_source_problem(const std::string& source) {
  if (source.empty()) return "must not be empty (CloudEvents requires a source)";
  for (const char c : source) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) {
      return "must be a URI-reference, without spaces or control characters (e.g. "
             "https://billing.example.com/orders or /billing/orders)";
    }
  }
  return std::nullopt;
}

MessageSettings read_message_settings(YamlSection& kafka) {
  MessageSettings message;
  const std::string profile = kafka.choice(
      "profile", kOutboxRelayProfile, {kOutboxRelayProfile, kDebeziumProfile, kCloudEventsProfile});
  message.profile = profile == kDebeziumProfile      ? MessageProfile::kDebezium
                    : profile == kCloudEventsProfile ? MessageProfile::kCloudEvents
                                                     : MessageProfile::kOutboxRelay;
  message.profile_line = kafka.line_of("profile");
  if (kafka.has("cloudevents_source")) {
    message.cloudevents_source = kafka.string("cloudevents_source", message.cloudevents_source);
    if (message.profile != MessageProfile::kCloudEvents) {
      kafka.problem("cloudevents_source", "is read only with kafka.profile: cloudevents");
    } else if (const auto problem = cloudevents_source_problem(message.cloudevents_source)) {
      kafka.problem("cloudevents_source", *problem);
    }
  }
  message.key_column = kafka.string("key_column", message.key_column);
  message.key_column_line = kafka.line_of("key_column");
  if (const auto problem = identifier_problem(message.key_column)) {
    kafka.problem("key_column", *problem);
  }
  message.trace_context = kafka.boolean("trace_context", message.trace_context);
  message.trace_context_line = kafka.line_of("trace_context");
  message.tombstones = kafka.boolean("tombstones", false);
  YamlSection headers = kafka.section("headers");
  const std::vector<std::string> reserved =
      reserved_header_names(message.profile, message.trace_context);
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
  if (message.profile == MessageProfile::kCloudEvents) {
    out << YAML::Key << "cloudevents_source" << YAML::Value << message.cloudevents_source;
  }
  out << YAML::Key << "key_column" << YAML::Value << message.key_column;
  out << YAML::Key << "headers" << YAML::Value << YAML::BeginMap;
  for (const HeaderSetting& header : message.headers) {
    out << YAML::Key << header.name << YAML::Value << YAML::Flow << YAML::BeginMap;
    if (header.column.empty()) {
      out << YAML::Key << "value" << YAML::Value << header.value;
    } else {
      out << YAML::Key << "column" << YAML::Value << header.column;
    }
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
  out << YAML::Key << "trace_context" << YAML::Value << message.trace_context;
  out << YAML::Key << "tombstones" << YAML::Value << message.tombstones;
}

}  // namespace outbox
