#pragma once

#include <string>
#include <vector>

#include "config/yaml_section.hpp"
#include "kafka/kafka_properties.hpp"
#include "publish/message_settings.hpp"
#include "publish/topic_router.hpp"

namespace outbox {

// kafka.*: where to publish and the producer's librdkafka properties. In a header of its own so
// that the broker side (publish/) needs this struct, not the whole relay configuration.
struct KafkaSettings {
  std::string bootstrap_servers;
  std::string topic = "outbox.{aggregate_type}";  // template over the row; default by profile
  std::vector<ScalarAt> topics;                   // aggregate_type -> template
  std::vector<ScalarAt> properties;               // handed to librdkafka verbatim
  std::vector<KafkaPropertyFile> property_files;  // ... each as its file's content
  MessageSettings message;                        // profile, headers, tombstones
};

// kafka.topic and kafka.topics as the relay routes by them (validated when the config was
// loaded).
TopicRouter topic_router(const KafkaSettings& kafka);

}  // namespace outbox
