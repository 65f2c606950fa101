#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "config/config_diagnostics.hpp"
#include "config/duration.hpp"
#include "config/env_substitution.hpp"

namespace outbox {

// A scalar read from the file, with the line it stands on (for errors found later,
// e.g. when librdkafka rejects a property).
struct ScalarAt {
  std::string key;
  std::string value;
  int line = 0;
};

// Reads one YAML mapping as a typed config section. Every reader records what is wrong
// (with the dotted key path and the file line) in the shared diagnostics and returns the
// fallback, so loading continues and all problems are reported together. Scalars pass
// through ${VAR} substitution before they are typed.
class YamlSection {
 public:
  YamlSection(const YAML::Node& node, std::string path, int line, ConfigDiagnostics& diagnostics,
              const EnvLookup& env);

  std::string string(const std::string& key, const std::string& fallback);
  std::optional<std::string> optional_string(const std::string& key);
  std::string required_string(const std::string& key);
  int64_t integer(const std::string& key, int64_t fallback, int64_t min, int64_t max);
  Micros duration(const std::string& key, Micros fallback, Micros min, Micros max);
  // A size with a unit (byte_size.hpp), within [min, max].
  uint64_t byte_size(const std::string& key, uint64_t fallback, uint64_t min, uint64_t max);
  // A retry pause that grows from `initial_key` up to `max_key`: two durations, each within
  // [min, its highest], and the ceiling not shorter than the start (an error on `max_key`).
  struct DurationRange {
    Micros initial;
    Micros max;
  };
  DurationRange duration_range(const std::string& initial_key, const std::string& max_key,
                               DurationRange fallback, Micros min, Micros initial_highest,
                               Micros max_highest);
  bool boolean(const std::string& key, bool fallback);
  std::string choice(const std::string& key, const std::string& fallback,
                     const std::vector<std::string>& allowed);
  // A mapping of plain strings (e.g. librdkafka properties), in file order.
  std::vector<ScalarAt> string_map(const std::string& key);
  // A list of plain strings (e.g. topic names), in file order; each entry carries its line.
  std::vector<ScalarAt> string_list(const std::string& key);
  // A nested section; an absent key yields an empty section.
  YamlSection section(const std::string& key);

  // The keys of this mapping in file order (for sections whose keys are names the operator
  // chooses, e.g. header names). Reading them marks none as known.
  std::vector<std::string> keys() const;
  bool has(const std::string& key) const;
  bool is_mapping(const std::string& key) const;
  int line_of(const std::string& key) const;
  std::string path_of(const std::string& key) const;
  void problem(const std::string& key, std::string what);
  // Reported with the problems, but the file stays valid (see ConfigDiagnostics::warn).
  void warning(const std::string& key, std::string what);
  // A problem found in a nested value read earlier (e.g. one entry of a string_map).
  void problem_at(int line, std::string key_path, std::string what);
  // A warning about such a value.
  void warning_at(int line, std::string key_path, std::string what);

  // A secret written in the file itself (holds_written_text: not only ${VAR} references), in a
  // file that every user of the machine can read, is a warning naming the key, the file and its
  // mode, never the value. For `key`, and for each entry of the mapping `map_key` whose name
  // `is_secret` accepts (librdkafka properties).
  void warn_if_inline_secret_exposed(const std::string& key);
  void warn_if_inline_secrets_exposed(const std::string& map_key,
                                      const std::function<bool(const std::string&)>& is_secret);

  // Reports keys nobody asked for (typos) and keys written twice. Call after reading.
  void reject_unknown_keys();

 private:
  // The substituted scalar text of key, or nullopt when absent/null or on error.
  std::optional<std::string> scalar(const std::string& key, const char* expected);
  YAML::Node child(const std::string& key) const;
  // What the inline-secret warnings say when the file is readable by every user, else "".
  std::string inline_secret_exposure() const;

  YAML::Node node_;
  std::string path_;
  int line_;
  ConfigDiagnostics* diagnostics_;
  const EnvLookup* env_;
  std::set<std::string> known_;
};

// Parses the file into a root section; syntax errors and unreadable files go to diagnostics
// and yield nullopt.
std::optional<YAML::Node> load_yaml_file(const std::string& file, ConfigDiagnostics& diagnostics);

}  // namespace outbox
