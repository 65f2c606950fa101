#include "kafka/kafka_properties.hpp"

#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cctype>

#include "secret_file.hpp"

namespace outbox {
namespace {

constexpr const char* kRedacted = "*****";

// `text` with every occurrence of `value` replaced by *****: librdkafka quotes a value it
// rejects, and a value from a file (or a secret) must not reach a message. Other values stay:
// "value 1000000000 is outside allowed range" is what their owner needs to read.
std::string without_value(std::string text, const std::string& value) {
  if (value.empty()) return text;
  for (size_t at = text.find(value); at != std::string::npos;
       at = text.find(value, at + std::char_traits<char>::length(kRedacted))) {
    text.replace(at, value.size(), kRedacted);
  }
  return text;
}

// `from_file`: the value is a file's content, hidden from the error whatever the property.
rd_kafka_conf_res_t set_property(rd_kafka_conf_t* conf, const std::string& name,
                                 const std::string& value, bool from_file, std::string& error) {
  std::array<char, 512> message{};
  const rd_kafka_conf_res_t result =
      rd_kafka_conf_set(conf, name.c_str(), value.c_str(), message.data(), message.size());
  if (result != RD_KAFKA_CONF_OK) {
    error = from_file || is_secret_kafka_property(name) ? without_value(message.data(), value)
                                                        : std::string(message.data());
  }
  return result;
}

std::string shown(const KafkaProperty& property) {
  return is_secret_kafka_property(property.name) ? kRedacted : property.value;
}

// What `policy` and librdkafka say of one user-supplied property, at its line.
void check_property(rd_kafka_conf_t* scratch, const std::string& name, const std::string& value,
                    bool from_file, int line, const std::string& path,
                    const KafkaPropertyPolicy& policy, ConfigDiagnostics& diagnostics) {
  const std::string reason = policy(name, value);
  if (!reason.empty()) {
    diagnostics.add(line, path, reason);
    return;
  }
  std::string error;
  if (set_property(scratch, name, value, from_file, error) != RD_KAFKA_CONF_OK) {
    diagnostics.add(line, path, "librdkafka rejects it: " + error);
  }
}

}  // namespace

Outcome<RdKafkaConf> make_kafka_conf(const std::vector<KafkaProperty>& properties) {
  RdKafkaConf conf(rd_kafka_conf_new());
  for (const KafkaProperty& property : properties) {
    std::string value = property.value;
    if (!property.file.empty()) {
      Outcome<std::string> content = read_secret_file(property.file);
      if (!content) {
        return Error{"kafka.property_files." + property.name + ": " + content.error().message};
      }
      value = std::move(content).value();
    }
    std::string error;
    if (set_property(conf.get(), property.name, value, !property.file.empty(), error) !=
        RD_KAFKA_CONF_OK) {
      return Error{"librdkafka rejects " + property.name + ": " + error};
    }
  }
  return conf;
}

std::string kafka_property_file_version(const std::string& path) {
  struct stat info {};
  if (stat(path.c_str(), &info) != 0) return "";
  return std::to_string(info.st_dev) + ":" + std::to_string(info.st_ino) + ":" +
         std::to_string(info.st_size) + ":" + std::to_string(info.st_mtim.tv_sec) + "." +
         std::to_string(info.st_mtim.tv_nsec);
}

std::vector<KafkaPropertyFile> read_kafka_property_files(YamlSection& section,
                                                         const std::vector<ScalarAt>& properties) {
  std::vector<KafkaPropertyFile> files;
  for (const ScalarAt& entry : section.string_map("property_files")) {
    const std::string path = section.path_of("property_files") + "." + entry.key;
    const auto inline_value =
        std::find_if(properties.begin(), properties.end(),
                     [&](const ScalarAt& property) { return property.key == entry.key; });
    if (inline_value != properties.end()) {
      section.problem_at(entry.line, path,
                         "is also set in " + section.path_of("properties") + " (line " +
                             std::to_string(inline_value->line) + "): set it in one of the two");
      continue;
    }
    const std::string version = kafka_property_file_version(entry.value);
    Outcome<std::string> content = read_secret_file(entry.value);
    if (!content) {
      section.problem_at(entry.line, path, content.error().message);
      continue;
    }
    if (content.value().empty()) {
      section.problem_at(entry.line, path, entry.value + " is empty");
      continue;
    }
    if (const std::string exposed = secret_file_exposure(entry.value); !exposed.empty()) {
      section.warning_at(entry.line, path, exposed);
    }
    files.push_back({entry.key, entry.value, entry.line, version});
  }
  return files;
}

void append_user_kafka_properties(std::vector<KafkaProperty>& out,
                                  const std::vector<ScalarAt>& properties,
                                  const std::vector<KafkaPropertyFile>& files) {
  for (const ScalarAt& property : properties) {
    out.push_back({property.key, property.value, "kafka.properties", ""});
  }
  for (const KafkaPropertyFile& file : files) {
    out.push_back({file.name, "", "kafka.property_files", file.path});
  }
}

void validate_kafka_properties(const std::vector<ScalarAt>& properties,
                               const std::vector<KafkaPropertyFile>& files,
                               const KafkaPropertyPolicy& policy, ConfigDiagnostics& diagnostics) {
  RdKafkaConf scratch(rd_kafka_conf_new());
  for (const ScalarAt& property : properties) {
    check_property(scratch.get(), property.key, property.value, false, property.line,
                   "kafka.properties." + property.key, policy, diagnostics);
  }
  for (const KafkaPropertyFile& file : files) {
    Outcome<std::string> content = read_secret_file(file.path);
    if (!content) continue;  // reported when the entry was read
    check_property(scratch.get(), file.name, content.value(), true, file.line,
                   "kafka.property_files." + file.name, policy, diagnostics);
  }
}

void log_kafka_properties(const std::vector<KafkaProperty>& properties) {
  for (const KafkaProperty& property : properties) {
    if (!property.file.empty()) {
      spdlog::info("kafka property {} from file {} ({})", property.name, property.file,
                   property.origin);
    } else {
      spdlog::info("kafka property {} = {} ({})", property.name, shown(property), property.origin);
    }
  }
}

void emit_kafka_properties(const std::vector<KafkaProperty>& properties, YAML::Emitter& out) {
  out << YAML::Key << "properties" << YAML::Value << YAML::BeginMap;
  bool any_file = false;
  for (const KafkaProperty& property : properties) {
    if (!property.file.empty()) {
      any_file = true;
      continue;
    }
    out << YAML::Key << property.name << YAML::Value << shown(property);
  }
  out << YAML::EndMap;
  if (!any_file) return;
  out << YAML::Key << "property_files" << YAML::Value << YAML::BeginMap;
  for (const KafkaProperty& property : properties) {
    if (!property.file.empty()) out << YAML::Key << property.name << YAML::Value << property.file;
  }
  out << YAML::EndMap;
}

std::string lowercase(std::string text) {
  for (char& c : text)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

}  // namespace outbox
