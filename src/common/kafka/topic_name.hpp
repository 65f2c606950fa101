#pragma once

#include <string>

namespace outbox {

// Kafka's rule for topic names: 1..249 characters of [a-zA-Z0-9._-], and not "." or "..".
bool is_valid_topic_name(const std::string& name);
bool is_topic_char(char c);

}  // namespace outbox
