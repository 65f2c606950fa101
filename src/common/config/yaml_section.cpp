#include "config/yaml_section.hpp"

#include "config/byte_size.hpp"
#include "secret_file.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

namespace outbox {
namespace {

int line_of_node(const YAML::Node& node, int fallback) {
  const YAML::Mark mark = node.Mark();
  return mark.line >= 0 ? mark.line + 1 : fallback;
}

const char* kind_of(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map:
      return "a mapping";
    case YAML::NodeType::Sequence:
      return "a list";
    default:
      return "a scalar";
  }
}

// Levenshtein distance, for "did you mean" hints on misspelt keys.
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string quoted(const std::string& text) {
  return "\"" + text + "\"";
}

}  // namespace

YamlSection::YamlSection(const YAML::Node& node, std::string path, int line,
                         ConfigDiagnostics& diagnostics, const EnvLookup& env)
    : node_(node), path_(std::move(path)), line_(line), diagnostics_(&diagnostics), env_(&env) {}

YAML::Node YamlSection::child(const std::string& key) const {
  if (!node_.IsMap()) return {};
  // Iterate instead of node_[key]: operator[] on a non-const node would insert the key.
  for (const auto& entry : node_) {
    if (entry.first.IsScalar() && entry.first.Scalar() == key) return entry.second;
  }
  return {};
}

std::vector<std::string> YamlSection::keys() const {
  std::vector<std::string> out;
  if (!node_.IsMap()) return out;
  for (const auto& entry : node_) {
    if (entry.first.IsScalar()) out.push_back(entry.first.Scalar());
  }
  return out;
}

bool YamlSection::has(const std::string& key) const {
  const YAML::Node value = child(key);
  return value.IsDefined() && !value.IsNull();
}

bool YamlSection::is_mapping(const std::string& key) const {
  return child(key).IsMap();
}

int YamlSection::line_of(const std::string& key) const {
  // The key's own line: for a nested mapping the value starts on the next line.
  if (!node_.IsMap()) return line_;
  for (const auto& entry : node_) {
    if (entry.first.IsScalar() && entry.first.Scalar() == key) {
      return line_of_node(entry.first, line_);
    }
  }
  return line_;
}

std::string YamlSection::path_of(const std::string& key) const {
  return path_.empty() ? key : path_ + "." + key;
}

void YamlSection::problem(const std::string& key, std::string what) {
  diagnostics_->add(line_of(key), path_of(key), std::move(what));
}

void YamlSection::warning(const std::string& key, std::string what) {
  diagnostics_->warn(line_of(key), path_of(key), std::move(what));
}

void YamlSection::problem_at(int line, std::string key_path, std::string what) {
  diagnostics_->add(line, std::move(key_path), std::move(what));
}

std::string YamlSection::inline_secret_exposure() const {
  const std::string exposure = secret_file_exposure(diagnostics_->file());
  if (exposure.empty()) return "";
  return "a secret written inline, in a file of " + exposure;
}

void YamlSection::warn_if_inline_secret_exposed(const std::string& key) {
  const YAML::Node value = child(key);
  if (!value.IsScalar() || !holds_written_text(value.Scalar(), *env_)) return;
  if (std::string exposure = inline_secret_exposure(); !exposure.empty()) {
    warning(key, std::move(exposure));
  }
}

void YamlSection::warn_if_inline_secrets_exposed(
    const std::string& map_key, const std::function<bool(const std::string&)>& is_secret) {
  const YAML::Node map = child(map_key);
  if (!map.IsMap()) return;
  std::string exposure;  // the file is looked at once, and only when a secret is inline
  for (const auto& entry : map) {
    if (!entry.first.IsScalar() || !entry.second.IsScalar()) continue;
    const std::string name = entry.first.Scalar();
    if (!is_secret(name) || !holds_written_text(entry.second.Scalar(), *env_)) continue;
    if (exposure.empty()) exposure = inline_secret_exposure();
    if (exposure.empty()) return;
    diagnostics_->warn(line_of_node(entry.first, line_), path_of(map_key) + "." + name, exposure);
  }
}

void YamlSection::warning_at(int line, std::string key_path, std::string what) {
  diagnostics_->warn(line, std::move(key_path), std::move(what));
}

std::optional<std::string> YamlSection::scalar(const std::string& key, const char* expected) {
  known_.insert(key);
  const YAML::Node value = child(key);
  if (!value.IsDefined() || value.IsNull()) return std::nullopt;
  if (!value.IsScalar()) {
    problem(key, std::string("must be ") + expected + ", got " + kind_of(value));
    return std::nullopt;
  }
  Outcome<std::string> substituted = substitute_env(value.Scalar(), *env_);
  if (!substituted) {
    problem(key, substituted.error().message);
    return std::nullopt;
  }
  return std::move(substituted).value();
}

std::string YamlSection::string(const std::string& key, const std::string& fallback) {
  return scalar(key, "a string").value_or(fallback);
}

std::optional<std::string> YamlSection::optional_string(const std::string& key) {
  return scalar(key, "a string");
}

std::string YamlSection::required_string(const std::string& key) {
  const bool present = has(key);
  std::optional<std::string> value = scalar(key, "a string");
  if (!present) problem(key, "is required");
  return value.value_or("");
}

int64_t YamlSection::integer(const std::string& key, int64_t fallback, int64_t min, int64_t max) {
  const std::optional<std::string> text = scalar(key, "an integer");
  if (!text) return fallback;
  int64_t value = 0;
  const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (ec != std::errc() || end != text->data() + text->size()) {
    problem(key, "must be an integer, got " + quoted(*text));
    return fallback;
  }
  if (value < min || value > max) {
    problem(key, "must be between " + std::to_string(min) + " and " + std::to_string(max) +
                     ", got " + std::to_string(value));
    return fallback;
  }
  return value;
}

Micros YamlSection::duration(const std::string& key, Micros fallback, Micros min, Micros max) {
  const std::optional<std::string> text = scalar(key, "a duration");
  if (!text) return fallback;
  const std::optional<Micros> value = parse_duration(*text);
  if (!value) {
    problem(key,
            "must be a duration like 30s or 50ms (units us, ms, s, m, h, d), got " + quoted(*text));
    return fallback;
  }
  if (*value < min || *value > max) {
    problem(key, "must be between " + format_duration(min) + " and " + format_duration(max) +
                     ", got " + *text);
    return fallback;
  }
  return *value;
}

uint64_t YamlSection::byte_size(const std::string& key, uint64_t fallback, uint64_t min,
                                uint64_t max) {
  const std::optional<std::string> text = scalar(key, "a size");
  if (!text) return fallback;
  const std::optional<uint64_t> value = parse_byte_size(*text);
  if (!value) {
    problem(key, "must be a size like 64MiB or 900KB (units B, KB, MB, GB, KiB, MiB, GiB), got " +
                     quoted(*text));
    return fallback;
  }
  if (*value < min || *value > max) {
    problem(key, "must be between " + format_byte_size(min) + " and " + format_byte_size(max) +
                     ", got " + *text);
    return fallback;
  }
  return *value;
}

YamlSection::DurationRange YamlSection::duration_range(const std::string& initial_key,
                                                       const std::string& max_key,
                                                       DurationRange fallback, Micros min,
                                                       Micros initial_highest, Micros max_highest) {
  DurationRange range;
  range.initial = duration(initial_key, fallback.initial, min, initial_highest);
  range.max = duration(max_key, fallback.max, min, max_highest);
  if (range.max < range.initial) {
    problem(max_key, "must not be shorter than " + path_of(initial_key) + " (" +
                         format_duration(range.initial) + ")");
  }
  return range;
}

bool YamlSection::boolean(const std::string& key, bool fallback) {
  const std::optional<std::string> text = scalar(key, "true or false");
  if (!text) return fallback;
  if (*text == "true") return true;
  if (*text == "false") return false;
  problem(key, "must be true or false, got " + quoted(*text));
  return fallback;
}

std::string YamlSection::choice(const std::string& key, const std::string& fallback,
                                const std::vector<std::string>& allowed) {
  const std::optional<std::string> text = scalar(key, "a string");
  if (!text) return fallback;
  if (std::find(allowed.begin(), allowed.end(), *text) != allowed.end()) return *text;
  std::string list;
  for (const std::string& option : allowed)
    list += (list.empty() ? "" : ", ") + option;
  problem(key, "must be one of " + list + "; got " + quoted(*text));
  return fallback;
}

std::vector<ScalarAt> YamlSection::string_map(const std::string& key) {
  known_.insert(key);
  std::vector<ScalarAt> out;
  const YAML::Node value = child(key);
  if (!value.IsDefined() || value.IsNull()) return out;
  if (!value.IsMap()) {
    problem(key, std::string("must be a mapping, got ") + kind_of(value));
    return out;
  }
  std::set<std::string> seen;
  for (const auto& entry : value) {
    const std::string name = entry.first.Scalar();
    const int line = line_of_node(entry.first, line_);
    const std::string path = path_of(key) + "." + name;
    if (!seen.insert(name).second) {
      diagnostics_->add(line, path, "is set twice");
      continue;
    }
    if (!entry.second.IsScalar()) {
      diagnostics_->add(line, path, std::string("must be a string, got ") + kind_of(entry.second));
      continue;
    }
    Outcome<std::string> substituted = substitute_env(entry.second.Scalar(), *env_);
    if (!substituted) {
      diagnostics_->add(line, path, substituted.error().message);
      continue;
    }
    out.push_back(ScalarAt{name, std::move(substituted).value(), line});
  }
  return out;
}

std::vector<ScalarAt> YamlSection::string_list(const std::string& key) {
  known_.insert(key);
  std::vector<ScalarAt> out;
  const YAML::Node value = child(key);
  if (!value.IsDefined() || value.IsNull()) return out;
  if (!value.IsSequence()) {
    problem(key, std::string("must be a list, got ") + kind_of(value));
    return out;
  }
  for (size_t index = 0; index < value.size(); ++index) {
    const YAML::Node entry = value[index];
    const int line = line_of_node(entry, line_);
    const std::string path = path_of(key) + "[" + std::to_string(index) + "]";
    if (!entry.IsScalar()) {
      diagnostics_->add(line, path, std::string("must be a string, got ") + kind_of(entry));
      continue;
    }
    Outcome<std::string> substituted = substitute_env(entry.Scalar(), *env_);
    if (!substituted) {
      diagnostics_->add(line, path, substituted.error().message);
      continue;
    }
    out.push_back(ScalarAt{std::to_string(index), std::move(substituted).value(), line});
  }
  return out;
}

YamlSection YamlSection::section(const std::string& key) {
  known_.insert(key);
  const YAML::Node value = child(key);
  const int line = line_of(key);
  if (value.IsDefined() && !value.IsNull() && !value.IsMap()) {
    problem(key, std::string("must be a mapping, got ") + kind_of(value));
    // A fresh node: assigning to `value` would overwrite the document's node it refers to.
    return {YAML::Node(), path_of(key), line, *diagnostics_, *env_};
  }
  return {value, path_of(key), line, *diagnostics_, *env_};
}

void YamlSection::reject_unknown_keys() {
  if (!node_.IsMap()) return;
  std::set<std::string> seen;
  for (const auto& entry : node_) {
    const std::string key = entry.first.Scalar();
    const int line = line_of_node(entry.first, line_);
    if (!seen.insert(key).second) {
      diagnostics_->add(line, path_of(key), "is set twice");
      continue;
    }
    if (known_.count(key) != 0) continue;
    std::string what = "unknown key";
    const std::string* best = nullptr;
    size_t best_distance = 3;  // only suggest near misses
    for (const std::string& candidate : known_) {
      const size_t distance = edit_distance(key, candidate);
      if (distance < best_distance) {
        best_distance = distance;
        best = &candidate;
      }
    }
    if (best != nullptr) what += " (did you mean " + path_of(*best) + "?)";
    diagnostics_->add(line, path_of(key), what);
  }
}

std::optional<YAML::Node> load_yaml_file(const std::string& file, ConfigDiagnostics& diagnostics) {
  std::ifstream in(file);
  if (!in) {
    diagnostics.add(0, "", std::string("cannot read file: ") + std::strerror(errno));
    return std::nullopt;
  }
  std::stringstream text;
  text << in.rdbuf();
  try {
    YAML::Node root = YAML::Load(text.str());
    if (root.IsNull()) return YAML::Node(YAML::NodeType::Map);
    if (!root.IsMap()) {
      diagnostics.add(line_of_node(root, 1), "", "the top level must be a mapping of sections");
      return std::nullopt;
    }
    return root;
  } catch (const YAML::ParserException& e) {
    diagnostics.add(e.mark.line + 1, "", "YAML syntax error: " + e.msg);
    return std::nullopt;
  }
}

}  // namespace outbox
