#include "publish/kafka_settings.hpp"

#include <map>

namespace outbox {

TopicRouter topic_router(const KafkaSettings& kafka) {
  std::map<std::string, TopicTemplate> overrides;
  for (const ScalarAt& entry : kafka.topics) {
    overrides.emplace(entry.key, TopicTemplate::parse(entry.value).value());
  }
  return {TopicTemplate::parse(kafka.topic).value(), std::move(overrides)};
}

}  // namespace outbox
