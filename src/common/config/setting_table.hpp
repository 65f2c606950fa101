#pragma once

#include <yaml-cpp/yaml.h>

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "config/byte_size.hpp"
#include "config/duration.hpp"
#include "config/yaml_section.hpp"

namespace outbox {

// Whether a running process takes a key's new value on SIGHUP, or needs a restart for it.
enum class Reload { kRestart, kLive };

// Whether a key's value is printed, or shown as ***** when set (--print-config, the log).
enum class Shown { kAsIs, kRedacted };

// The keys of one configuration section, each written once: its name, its bounds, whether it
// reloads, how it is printed. Reading (start-up and --check-config), printing (--print-config,
// the start-up log) and reload (which keys a SIGHUP may change) all go through the table. A
// key's default is the settings struct's own member initialiser: the table reads into a
// default-constructed struct and passes each member's value as the fallback.
//
// Entries run in the order they were added, so a custom entry can depend on one before it
// (relay.chain_length's default on relay.ordering).
template <typename Settings>
class SettingTable {
 public:
  using Reader = std::function<void(YamlSection&, Settings&)>;
  using Printer = std::function<void(YAML::Emitter&, const Settings&)>;

  struct Entry {
    std::vector<std::string> keys;  // the YAML keys the entry reads and prints
    Reload reload = Reload::kRestart;
    Reader read;
    Printer print;
  };

  // A key of one value: `read(section, key, current)` reads it with its bounds (current is the
  // fallback), `shown(value)` is what prints.
  template <typename T, typename Read, typename Show>
  SettingTable& scalar(std::string key, T Settings::*member, Reload reload, Read read, Show shown) {
    return add(
        {key}, reload,
        [key, member, read](YamlSection& section, Settings& settings) {
          settings.*member = read(section, key, settings.*member);
        },
        [key, member, shown](YAML::Emitter& out, const Settings& settings) {
          out << YAML::Key << key << YAML::Value << shown(settings.*member);
        });
  }

  template <typename Int>
  SettingTable& integer(std::string key, Int Settings::*member, int64_t min, int64_t max,
                        Reload reload = Reload::kRestart) {
    return scalar(
        std::move(key), member, reload,
        [min, max](YamlSection& section, const std::string& name, Int current) {
          return static_cast<Int>(section.integer(name, static_cast<int64_t>(current), min, max));
        },
        [](Int value) { return value; });
  }

  SettingTable& duration(std::string key, Micros Settings::*member, Micros min, Micros max,
                         Reload reload = Reload::kRestart) {
    return scalar(
        std::move(key), member, reload,
        [min, max](YamlSection& section, const std::string& name, Micros current) {
          return section.duration(name, current, min, max);
        },
        format_duration);
  }

  SettingTable& byte_size(std::string key, uint64_t Settings::*member, uint64_t min, uint64_t max,
                          Reload reload = Reload::kRestart) {
    return scalar(
        std::move(key), member, reload,
        [min, max](YamlSection& section, const std::string& name, uint64_t current) {
          return section.byte_size(name, current, min, max);
        },
        format_byte_size);
  }

  SettingTable& string(std::string key, std::string Settings::*member, Shown shown = Shown::kAsIs,
                       Reload reload = Reload::kRestart) {
    return scalar(
        std::move(key), member, reload,
        [](YamlSection& section, const std::string& name, const std::string& current) {
          return section.string(name, current);
        },
        [shown](const std::string& value) {
          return shown == Shown::kRedacted && !value.empty() ? std::string("*****") : value;
        });
  }

  // A string the section must set (YamlSection::required_string).
  SettingTable& required(std::string key, std::string Settings::*member,
                         Reload reload = Reload::kRestart) {
    return scalar(
        std::move(key), member, reload,
        [](YamlSection& section, const std::string& name, const std::string& /*current*/) {
          return section.required_string(name);
        },
        [](const std::string& value) { return value; });
  }

  // A string that must be one of `allowed`.
  SettingTable& choice(std::string key, std::string Settings::*member,
                       const std::vector<std::string>& allowed, Reload reload = Reload::kRestart) {
    return scalar(
        std::move(key), member, reload,
        [allowed](YamlSection& section, const std::string& name, const std::string& current) {
          return section.choice(name, current, allowed);
        },
        [](const std::string& value) { return value; });
  }

  // A word that names a value of an enum: `names` pairs each word with its value.
  template <typename Enum>
  SettingTable& choice(std::string key, Enum Settings::*member,
                       std::vector<std::pair<std::string, Enum>> names,
                       Reload reload = Reload::kRestart) {
    const auto name_of = [names](Enum value) {
      for (const auto& [name, named] : names) {
        if (named == value) return name;
      }
      return std::string();
    };
    std::vector<std::string> allowed;
    allowed.reserve(names.size());
    for (const auto& entry : names)
      allowed.push_back(entry.first);
    return add(
        {key}, reload,
        [key, member, names, allowed, name_of](YamlSection& section, Settings& settings) {
          const std::string word = section.choice(key, name_of(settings.*member), allowed);
          for (const auto& [name, value] : names) {
            if (name == word) settings.*member = value;
          }
        },
        [key, member, name_of](YAML::Emitter& out, const Settings& settings) {
          out << YAML::Key << key << YAML::Value << name_of(settings.*member);
        });
  }

  // A duration that may stay unset (printed as null), within [min, max] when set.
  SettingTable& optional_duration(std::string key, std::optional<Micros> Settings::*member,
                                  Micros min, Micros max, Reload reload = Reload::kRestart) {
    return add(
        {key}, reload,
        [key, member, min, max](YamlSection& section, Settings& settings) {
          if (!section.has(key)) return;
          // Falls back to 0 when the value is refused: the error is recorded already.
          settings.*member = section.duration(key, Micros(0), min, max);
        },
        [key, member](YAML::Emitter& out, const Settings& settings) {
          out << YAML::Key << key << YAML::Value;
          if (settings.*member) {
            out << format_duration(*(settings.*member));
          } else {
            out << YAML::Null;
          }
        });
  }

  // A retry pause growing from `initial_key` to `max_key` (YamlSection::duration_range).
  SettingTable& duration_range(std::string initial_key, std::string max_key,
                               Micros Settings::*initial, Micros Settings::*max, Micros min,
                               Micros initial_highest, Micros max_highest,
                               Reload reload = Reload::kRestart) {
    return add(
        {initial_key, max_key}, reload,
        [=](YamlSection& section, Settings& settings) {
          const YamlSection::DurationRange range =
              section.duration_range(initial_key, max_key, {settings.*initial, settings.*max}, min,
                                     initial_highest, max_highest);
          settings.*initial = range.initial;
          settings.*max = range.max;
        },
        [=](YAML::Emitter& out, const Settings& settings) {
          out << YAML::Key << initial_key << YAML::Value << format_duration(settings.*initial);
          out << YAML::Key << max_key << YAML::Value << format_duration(settings.*max);
        });
  }

  // Keys read and printed by hand: a choice that maps to an enum, a check beyond bounds.
  SettingTable& custom(std::vector<std::string> keys, Reload reload, Reader read, Printer print) {
    return add(std::move(keys), reload, std::move(read), std::move(print));
  }

  // A whole section: its keys from a default-constructed struct, then no key it does not know.
  Settings read_section(YamlSection section) const {
    Settings settings;
    read(section, settings);
    section.reject_unknown_keys();
    return settings;
  }
  // The section as a YAML mapping value.
  void emit_section(YAML::Emitter& out, const Settings& settings) const {
    out << YAML::BeginMap;
    print(out, settings);
    out << YAML::EndMap;
  }

  // Reads every key into `settings`, each falling back to the value `settings` holds.
  void read(YamlSection& section, Settings& settings) const {
    for (const Entry& entry : entries_)
      entry.read(section, settings);
  }
  // Every key with its value, in table order, into the open map of `out`.
  void print(YAML::Emitter& out, const Settings& settings) const {
    for (const Entry& entry : entries_)
      entry.print(out, settings);
  }
  // "<prefix>key" for each key a SIGHUP may change.
  std::vector<std::string> live_keys(const std::string& prefix) const {
    std::vector<std::string> out;
    for (const Entry& entry : entries_) {
      if (entry.reload != Reload::kLive) continue;
      for (const std::string& key : entry.keys)
        out.push_back(prefix + key);
    }
    return out;
  }
  const std::vector<Entry>& entries() const { return entries_; }

 private:
  SettingTable& add(std::vector<std::string> keys, Reload reload, Reader read, Printer print) {
    entries_.push_back(Entry{std::move(keys), reload, std::move(read), std::move(print)});
    return *this;
  }

  std::vector<Entry> entries_;
};

}  // namespace outbox
