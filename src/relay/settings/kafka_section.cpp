#include "settings/kafka_section.hpp"

#include "kafka/kafka_properties.hpp"
#include "kafka/rdkafka_handles.hpp"
#include "publish/producer_config.hpp"
#include "publish/topic_router.hpp"

#include <utility>

namespace outbox {
namespace {

SettingTable<KafkaSettings> make_kafka_keys() {
  using S = KafkaSettings;
  SettingTable<S> keys;
  keys.required("bootstrap_servers", &S::bootstrap_servers)
      // Before topic: the profile decides the topic's default.
      .custom(
          {"profile", "cloudevents_source", "key_column", "headers", "trace_context", "tombstones"},
          Reload::kRestart,
          [](YamlSection& section, S& kafka) { kafka.message = read_message_settings(section); },
          [](YAML::Emitter&, const S&) {})  // printed after topics, below
      .custom(
          {"topic"}, Reload::kRestart,
          [](YamlSection& section, S& kafka) {
            kafka.topic = section.string("topic", default_topic_template(kafka.message.profile));
            if (Outcome<TopicTemplate> parsed = TopicTemplate::parse(kafka.topic); !parsed) {
              section.problem("topic", parsed.error().message);
            }
          },
          [](YAML::Emitter& out, const S& kafka) {
            out << YAML::Key << "topic" << YAML::Value << kafka.topic;
          })
      .custom(
          {"topics"}, Reload::kRestart,
          [](YamlSection& section, S& kafka) {
            kafka.topics = section.string_map("topics");
            for (const ScalarAt& entry : kafka.topics) {
              if (Outcome<TopicTemplate> parsed = TopicTemplate::parse(entry.value); !parsed) {
                section.problem_at(entry.line, "kafka.topics." + entry.key, parsed.error().message);
              }
            }
          },
          [](YAML::Emitter& out, const S& kafka) {
            out << YAML::Key << "topics" << YAML::Value << YAML::BeginMap;
            for (const ScalarAt& entry : kafka.topics)
              out << YAML::Key << entry.key << YAML::Value << entry.value;
            out << YAML::EndMap;
            emit_message_settings(kafka.message, out);
          })
      // Secrets are redacted as printed (emit_kafka_properties); a property file's content
      // is never printed, only its path.
      .custom(
          {"properties", "property_files"}, Reload::kRestart,
          [](YamlSection& section, S& kafka) {
            kafka.properties = section.string_map("properties");
            section.warn_if_inline_secrets_exposed("properties", is_secret_kafka_property);
            kafka.property_files = read_kafka_property_files(section, kafka.properties);
          },
          [](YAML::Emitter& out, const S& kafka) {
            emit_kafka_properties(producer_properties(kafka), out);
          });
  return keys;
}

}  // namespace

const SettingTable<KafkaSettings>& kafka_keys() {
  static const SettingTable<KafkaSettings> keys = make_kafka_keys();
  return keys;
}

KafkaSettings read_kafka(YamlSection section) {
  return kafka_keys().read_section(std::move(section));
}

}  // namespace outbox
