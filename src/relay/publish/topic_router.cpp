#include "publish/topic_router.hpp"

#include "kafka/topic_name.hpp"

namespace outbox {
namespace {

// The parse errors, built outside the parse loop and appended piece by piece (GCC 12 at -O2 and
// above reports a false -Wrestrict on `"literal" + std::string`, GCC bug 105329).
Error unclosed_brace(const std::string& text) {
  std::string message = R"(unclosed "{" in ")";
  message += text;
  message += '"';
  return Error{std::move(message)};
}

Error unknown_placeholder(const std::string& name, const std::string& text) {
  std::string message = "unknown placeholder {";
  message += name;
  message += R"(} in ")";
  message += text;
  message += R"(" (known: {aggregate_type}, {event_type}))";
  return Error{std::move(message)};
}

Error forbidden_char(const std::string& text, char c) {
  std::string message = "\"";
  message += text;
  message += R"(" contains ')";
  message += c;
  message += "', which Kafka does not allow in a topic name (a-z A-Z 0-9 . _ -)";
  return Error{std::move(message)};
}

}  // namespace

Outcome<TopicTemplate> TopicTemplate::parse(const std::string& text) {
  TopicTemplate parsed;
  parsed.text_ = text;
  if (text.empty()) return Error{"must not be empty"};
  std::string literal;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '{') {
      const size_t close = text.find('}', i);
      if (close == std::string::npos) return unclosed_brace(text);
      const std::string name = text.substr(i + 1, close - i - 1);
      if (!literal.empty()) parsed.parts_.emplace_back(std::move(literal));
      literal.clear();
      if (name == "aggregate_type") {
        parsed.parts_.emplace_back(Field::kAggregateType);
      } else if (name == "event_type") {
        parsed.parts_.emplace_back(Field::kEventType);
      } else {
        return unknown_placeholder(name, text);
      }
      i = close;
    } else if (!is_topic_char(c)) {
      return forbidden_char(text, c);
    } else {
      literal.push_back(c);
    }
  }
  if (!literal.empty()) parsed.parts_.emplace_back(std::move(literal));
  return parsed;
}

std::string TopicTemplate::render(const OutboxEvent& event) const {
  std::string out;
  for (const auto& part : parts_) {
    if (const auto* literal = std::get_if<std::string>(&part)) {
      out += *literal;
    } else if (std::get<Field>(part) == Field::kAggregateType) {
      out += event.aggregate_type;
    } else {
      out += event.event_type;
    }
  }
  return out;
}

TopicRouter::TopicRouter(TopicTemplate fallback,
                         std::map<std::string, TopicTemplate> by_aggregate_type)
    : fallback_(std::move(fallback)), by_aggregate_type_(std::move(by_aggregate_type)) {}

Outcome<std::string> TopicRouter::route(const OutboxEvent& event) const {
  const auto found = by_aggregate_type_.find(event.aggregate_type);
  const bool overridden = found != by_aggregate_type_.end();
  const TopicTemplate& chosen = overridden ? found->second : fallback_;
  std::string topic = chosen.render(event);
  if (!is_valid_topic_name(topic)) {
    const std::string source =
        overridden ? "kafka.topics." + event.aggregate_type : std::string("kafka.topic");
    return Error{"event " + event.event_id + ": topic \"" + topic + "\" (from " + source + " \"" +
                 chosen.text() +
                 "\") is not a valid Kafka topic name: 1-249 characters of a-z A-Z 0-9 . _ -"};
  }
  return topic;
}

}  // namespace outbox
