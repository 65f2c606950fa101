#pragma once

#include <yaml-cpp/yaml.h>

#include <functional>
#include <string>
#include <vector>

#include "config/config_diagnostics.hpp"
#include "config/yaml_section.hpp"
#include "kafka/rdkafka_handles.hpp"
#include "outcome.hpp"

namespace outbox {

// One librdkafka property as a program applies it, and why it has that value.
struct KafkaProperty {
  std::string name;
  std::string value;
  const char* origin;  // e.g. "default", "kafka.properties", "required by the relay"
  // kafka.property_files: the value is this file's content, read by make_kafka_conf (`value`
  // stays empty, so the secret is never held by the settings, printed or logged). Defaulted,
  // so that {name, value, origin} still initialises the rest.
  std::string file = {};
};

// One kafka.property_files entry: a librdkafka property whose value is a file's content
// (trailing newline dropped, like mysql.password_file), so a secret stays out of the YAML file.
struct KafkaPropertyFile {
  std::string name;  // the librdkafka property
  std::string path;
  int line = 0;
  // The file's identity when the config was loaded (device, inode, size, mtime; never its
  // content): a SIGHUP compares it to say the file changed.
  std::string version;
};

// A librdkafka conf holding `properties`, set in order (a later one wins). A file-backed
// property's file is read here, i.e. each time a producer or consumer is created. The error
// names the property librdkafka refused (or the file that cannot be read), never a secret.
Outcome<RdKafkaConf> make_kafka_conf(const std::vector<KafkaProperty>& properties);

// Reads `property_files` of a kafka section (librdkafka property -> file). Each file is read
// once to check it: one that cannot be read (or is empty) is a problem, one other users can
// read a warning; a property also set in `properties` is a problem.
std::vector<KafkaPropertyFile> read_kafka_property_files(YamlSection& section,
                                                         const std::vector<ScalarAt>& properties);

// The user's properties as applied: kafka.properties, then kafka.property_files.
void append_user_kafka_properties(std::vector<KafkaProperty>& out,
                                  const std::vector<ScalarAt>& properties,
                                  const std::vector<KafkaPropertyFile>& files);

// The identity of a file as KafkaPropertyFile::version holds it ("" when it cannot be stat'ed).
std::string kafka_property_file_version(const std::string& path);

// Why a user-supplied property may not be set (the program controls it), or "" if it may.
using KafkaPropertyPolicy =
    std::function<std::string(const std::string& name, const std::string& value)>;

// Checks kafka.properties and kafka.property_files at load time, each problem at its line:
// what `policy` forbids and names or values librdkafka rejects (a file's value is read for
// the check and kept out of the message).
void validate_kafka_properties(const std::vector<ScalarAt>& properties,
                               const std::vector<KafkaPropertyFile>& files,
                               const KafkaPropertyPolicy& policy, ConfigDiagnostics& diagnostics);

// One info line per property, in the order applied, secrets as *****, a file-backed one as
// its file's path.
void log_kafka_properties(const std::vector<KafkaProperty>& properties);

// The entries `properties` (secrets as *****) and, when any property comes from a file,
// `property_files` (name -> path) of a YAML mapping.
void emit_kafka_properties(const std::vector<KafkaProperty>& properties, YAML::Emitter& out);

// librdkafka reads booleans and enums in any case: compare values through this.
std::string lowercase(std::string text);

}  // namespace outbox
