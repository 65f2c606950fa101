#pragma once

#include <map>
#include <string>
#include <variant>
#include <vector>

#include "kafka/topic_name.hpp"
#include "outbox_event.hpp"
#include "outcome.hpp"

namespace outbox {

// A topic name template such as "outbox.{aggregate_type}". Placeholders are plain braces
// ("${...}" is environment substitution, done earlier when the config is read).
class TopicTemplate {
 public:
  // Errors name what is wrong: an unknown placeholder, an unclosed brace, a character Kafka
  // does not allow in topic names.
  static Outcome<TopicTemplate> parse(const std::string& text);
  std::string render(const OutboxEvent& event) const;
  const std::string& text() const { return text_; }

 private:
  enum class Field { kAggregateType, kEventType };
  std::string text_;
  std::vector<std::variant<std::string, Field>> parts_;
};

// Picks each event's topic: the per-aggregate-type template if one is configured
// (kafka.topics), else the default (kafka.topic).
class TopicRouter {
 public:
  TopicRouter(TopicTemplate fallback, std::map<std::string, TopicTemplate> by_aggregate_type);
  // The topic, or an error naming the event when row data renders an illegal topic name.
  Outcome<std::string> route(const OutboxEvent& event) const;

 private:
  TopicTemplate fallback_;
  std::map<std::string, TopicTemplate> by_aggregate_type_;
};

}  // namespace outbox
