#include "kafka/topic_name.hpp"

namespace outbox {
namespace {

constexpr size_t kMaxTopicLength = 249;

}  // namespace

bool is_topic_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-';
}

bool is_valid_topic_name(const std::string& name) {
  if (name.empty() || name.size() > kMaxTopicLength || name == "." || name == "..") return false;
  for (char c : name) {
    if (!is_topic_char(c)) return false;
  }
  return true;
}

}  // namespace outbox
