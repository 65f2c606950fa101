#include "consumer_settings.hpp"

#include <algorithm>

#include "kafka/rdkafka_handles.hpp"
#include "kafka/topic_name.hpp"

namespace outbox::consumer {
namespace {

using std::chrono::hours;
using std::chrono::milliseconds;
using std::chrono::minutes;

constexpr size_t kMaxConsumerNameLength = 128;  // consumed_event.consumer_name VARCHAR(128)

const char* kTopicRule = "is not a valid Kafka topic name: 1-249 characters of a-z A-Z 0-9 . _ -";

// Why a user-supplied consumer property may not be set, or "" if it may.
std::string forbidden_reason(const std::string& name, const std::string& value) {
  if (name == "bootstrap.servers" || name == "metadata.broker.list") {
    return "set kafka.bootstrap_servers instead";
  }
  if (name == "group.id") return "set kafka.group_id instead";
  if (name == "enable.auto.commit" && lowercase(value) != "false") {
    return "must stay false: an offset is committed only after the event's database "
           "transaction committed";
  }
  if (name == "enable.auto.offset.store" && lowercase(value) != "false") {
    return "must stay false: only offsets of events whose transaction committed may be stored";
  }
  if (name == "transactional.id") return "is not supported";
  if (name == "isolation.level" && lowercase(value) != "read_committed") {
    return "must stay read_committed: with relay.ordering: transactional an aborted batch's "
           "copies are on the topic, and only read_committed skips them (they may hold a later "
           "version without the one before)";
  }
  if (name == "enable.idempotence" && lowercase(value) != "true") {
    return "must stay true: the dead-letter producer must not duplicate or reorder on retries";
  }
  if ((name == "acks" || name == "request.required.acks") && lowercase(value) != "all" &&
      value != "-1") {
    return "must stay all: a dead letter counts as stored only once every in-sync replica has "
           "it";
  }
  return "";
}

ConsumerKafkaSettings read_kafka(YamlSection& section) {
  ConsumerKafkaSettings kafka;
  kafka.bootstrap_servers = section.required_string("bootstrap_servers");
  const bool has_topics = section.has("topics");
  for (const ScalarAt& topic : section.string_list("topics")) {
    if (!is_valid_topic_name(topic.value)) {
      section.problem_at(topic.line, section.path_of("topics") + "[" + topic.key + "]",
                         "\"" + topic.value + "\" " + kTopicRule);
    } else if (std::find(kafka.topics.begin(), kafka.topics.end(), topic.value) !=
               kafka.topics.end()) {
      section.problem_at(topic.line, section.path_of("topics") + "[" + topic.key + "]",
                         "\"" + topic.value + "\" is listed twice");
    } else {
      kafka.topics.push_back(topic.value);
    }
  }
  if (!has_topics) section.problem("topics", "is required (a list of topic names)");
  kafka.group_id = section.string("group_id", "");
  kafka.properties = section.string_map("properties");
  section.warn_if_inline_secrets_exposed("properties", is_secret_kafka_property);
  kafka.property_files = read_kafka_property_files(section, kafka.properties);
  section.reject_unknown_keys();
  return kafka;
}

ConsumerBehaviour read_consumer(YamlSection& section, const std::string& default_name) {
  ConsumerBehaviour consumer;
  consumer.name =
      default_name.empty() ? section.required_string("name") : section.string("name", default_name);
  if (consumer.name.empty() && section.has("name")) section.problem("name", "must not be empty");
  if (consumer.name.size() > kMaxConsumerNameLength) {
    section.problem("name", "must be at most " + std::to_string(kMaxConsumerNameLength) +
                                " characters (consumed_event.consumer_name is VARCHAR(128))");
  }
  consumer.dead_letter_topic = section.required_string("dead_letter_topic");
  if (section.has("dead_letter_topic") && !is_valid_topic_name(consumer.dead_letter_topic)) {
    section.problem("dead_letter_topic", "\"" + consumer.dead_letter_topic + "\" " + kTopicRule);
  }
  const YamlSection::DurationRange backoff = section.duration_range(
      "backoff_initial", "backoff_max", {consumer.backoff_initial, consumer.backoff_max},
      milliseconds(1), minutes(1), hours(1));
  consumer.backoff_initial = backoff.initial;
  consumer.backoff_max = backoff.max;
  consumer.max_attempts =
      static_cast<int>(section.integer("max_attempts", consumer.max_attempts, 0, 1000000));
  consumer.commit_interval =
      section.duration("commit_interval", consumer.commit_interval, Micros(0), minutes(1));
  section.reject_unknown_keys();
  return consumer;
}

}  // namespace

ConsumerSettings read_consumer_settings(YamlSection kafka_section, YamlSection consumer_section,
                                        const std::string& default_name,
                                        ConfigDiagnostics& diagnostics) {
  ConsumerSettings settings;
  settings.kafka = read_kafka(kafka_section);
  settings.consumer = read_consumer(consumer_section, default_name);
  if (settings.kafka.group_id.empty()) settings.kafka.group_id = settings.consumer.name;
  if (std::find(settings.kafka.topics.begin(), settings.kafka.topics.end(),
                settings.consumer.dead_letter_topic) != settings.kafka.topics.end()) {
    consumer_section.problem("dead_letter_topic",
                             "must not be one of kafka.topics: a dead letter would be consumed "
                             "again and dead-lettered again, forever");
  }
  validate_kafka_properties(settings.kafka.properties, settings.kafka.property_files,
                            forbidden_reason, diagnostics);
  return settings;
}

std::vector<KafkaProperty> consumer_properties(const ConsumerSettings& settings) {
  std::vector<KafkaProperty> out{
      {"client.id", settings.consumer.name, "default"},
      // A group that starts after events were published must still see them: an outbox
      // consumer never starts at the end.
      {"auto.offset.reset", "earliest", "default"},
  };
  append_user_kafka_properties(out, settings.kafka.properties, settings.kafka.property_files);
  out.push_back({"bootstrap.servers", settings.kafka.bootstrap_servers, "kafka.bootstrap_servers"});
  out.push_back({"group.id", settings.kafka.group_id, "kafka.group_id"});
  out.push_back({"enable.auto.commit", "false", "required by the consumer"});
  out.push_back({"enable.auto.offset.store", "false", "required by the consumer"});
  // librdkafka's default too; explicit because the transactional relay's order depends on it.
  out.push_back({"isolation.level", "read_committed", "required by the consumer"});
  return out;
}

std::vector<KafkaProperty> dead_letter_producer_properties(const ConsumerSettings& settings) {
  std::vector<KafkaProperty> out{
      {"client.id", settings.consumer.name + "-dead-letter", "default"},
      // One message at a time, each awaited: nothing to batch, so no lingering.
      {"linger.ms", "0", "default"},
      // The consumer waits for each dead letter's report without polling its group: the wait
      // must stay far below max.poll.interval.ms (librdkafka's default for both is 5 minutes).
      {"message.timeout.ms", "30000", "default"},
  };
  append_user_kafka_properties(out, settings.kafka.properties, settings.kafka.property_files);
  out.push_back({"bootstrap.servers", settings.kafka.bootstrap_servers, "kafka.bootstrap_servers"});
  out.push_back({"enable.idempotence", "true", "required by the consumer"});
  out.push_back({"acks", "all", "required by the consumer"});
  return out;
}

void emit_consumer_settings(const ConsumerSettings& settings, YAML::Emitter& out) {
  out << YAML::Key << "kafka" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "bootstrap_servers" << YAML::Value << settings.kafka.bootstrap_servers;
  out << YAML::Key << "topics" << YAML::Value << settings.kafka.topics;
  out << YAML::Key << "group_id" << YAML::Value << settings.kafka.group_id;
  emit_kafka_properties(consumer_properties(settings), out);
  out << YAML::EndMap;

  const ConsumerBehaviour& consumer = settings.consumer;
  out << YAML::Key << "consumer" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << consumer.name;
  out << YAML::Key << "dead_letter_topic" << YAML::Value << consumer.dead_letter_topic;
  out << YAML::Key << "backoff_initial" << YAML::Value << format_duration(consumer.backoff_initial);
  out << YAML::Key << "backoff_max" << YAML::Value << format_duration(consumer.backoff_max);
  out << YAML::Key << "max_attempts" << YAML::Value << consumer.max_attempts;
  out << YAML::Key << "commit_interval" << YAML::Value << format_duration(consumer.commit_interval);
  out << YAML::EndMap;
}

}  // namespace outbox::consumer
