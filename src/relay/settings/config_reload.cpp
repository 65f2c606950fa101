#include "settings/config_reload.hpp"

#include <yaml-cpp/yaml.h>

#include <map>
#include <set>

#include "logging.hpp"

namespace outbox {
namespace {

// "section.key" -> printed value, from the redacted YAML printout.
void flatten(const YAML::Node& node, const std::string& prefix,
             std::map<std::string, std::string>& out) {
  if (node.IsMap()) {
    for (const auto& entry : node) {
      std::string path = prefix;
      if (!path.empty()) path += '.';
      path += entry.first.Scalar();
      flatten(entry.second, path, out);
    }
  } else {
    out[prefix] = node.IsScalar() ? node.Scalar() : "";
  }
}

std::map<std::string, std::string> flat(const RelayConfig& config) {
  std::map<std::string, std::string> out;
  flatten(YAML::Load(print_relay_config(config)), "", out);
  return out;
}

}  // namespace

std::vector<std::string> apply_reload(RelayConfig& running, const RelayConfig& fresh,
                                      LiveSettings& live) {
  // The keys the sections' tables mark live (relay_settings.cpp, log_section.cpp).
  static const std::set<std::string> kLive = [] {
    std::set<std::string> keys;
    for (const std::vector<std::string>& section :
         {log_keys().live_keys("log."), relay_keys().live_keys("relay."),
          metrics_keys().live_keys("metrics.")}) {
      keys.insert(section.begin(), section.end());
    }
    return keys;
  }();
  const auto before = flat(running);
  const auto after = flat(fresh);
  std::set<std::string> keys;
  for (const auto& [key, value] : before)
    keys.insert(key);
  for (const auto& [key, value] : after)
    keys.insert(key);
  std::vector<std::string> need_restart;
  for (const std::string& key : keys) {
    if (kLive.count(key) != 0) continue;
    const auto old_value = before.find(key);
    const auto new_value = after.find(key);
    const bool same = old_value != before.end() && new_value != after.end() &&
                      old_value->second == new_value->second;
    if (!same) need_restart.push_back(key);
  }
  // After the comparison, which needs the settings as they were.
  set_log_level(fresh.log.level);
  live.batch_size.store(static_cast<size_t>(fresh.relay.batch_size));
  live.polls.set_intervals(fresh.relay.poll_interval, fresh.relay.poll_interval_max);
  running.log.level = fresh.log.level;
  running.relay.batch_size = fresh.relay.batch_size;
  running.relay.poll_interval = fresh.relay.poll_interval;
  running.relay.poll_interval_max = fresh.relay.poll_interval_max;
  if (fresh.relay.max_events_per_second != running.relay.max_events_per_second) {
    live.rate.set_rate(fresh.relay.max_events_per_second, std::chrono::steady_clock::now());
    running.relay.max_events_per_second = fresh.relay.max_events_per_second;
  }
  return need_restart;
}

}  // namespace outbox
