#include "operator/paused_partitions.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>

namespace outbox {
namespace {

Micros paused_since(PausedPartitions::Clock::time_point start,
                    PausedPartitions::Clock::time_point now) {
  return std::chrono::duration_cast<Micros>(now - start);
}

}  // namespace

void PausedPartitions::remember(Pause& pause, const std::vector<std::string>& ids) {
  for (const std::string& id : ids) {
    if (pause.held.size() >= kMaxRememberedIds) return;  // the rest: at their recheck
    if (pause.held_set.insert(id).second) pause.held.push_back(id);
  }
}

bool PausedPartitions::failed(const Destination& destination, const std::string& error,
                              const std::vector<std::string>& held, Clock::time_point now) {
  std::lock_guard lock(mutex_);
  auto found = paused_.find(destination);
  const bool newly_paused = found == paused_.end();
  if (newly_paused) {
    Pause pause;
    pause.since = now;
    pause.error = error;
    pause.probe_interval = settings_.probe_interval_initial;
    pause.next_probe = now + pause.probe_interval;
    found = paused_.emplace(destination, std::move(pause)).first;
    ++paused_topics_[destination.topic];
    ++pauses_total_;
    spdlog::warn(
        "partition {} paused: {}; its events wait as RETRY (no attempt counted, nothing parked), "
        "the other partitions flow; probing with up to {} events at a time",
        destination.name(), error, settings_.probe_events);
  } else {
    Pause& pause = found->second;
    pause.error = error;
    bool probe_failed = false;
    for (const std::string& id : held)
      probe_failed = pause.probes_sent.erase(id) != 0 || probe_failed;
    if (probe_failed) {
      pause.probe_interval = std::min(pause.probe_interval * 2, settings_.probe_interval_max);
      pause.next_probe = now + pause.probe_interval;
      spdlog::warn("partition {} paused for {}: the probe failed too ({}); next probe in {}",
                   destination.name(), format_pause(paused_since(pause.since, now)), error,
                   format_pause(pause.probe_interval));
    }
  }
  remember(found->second, held);
  return newly_paused;
}

void PausedPartitions::held_at_claim(const Destination& destination,
                                     const std::vector<std::string>& held) {
  std::lock_guard lock(mutex_);
  const auto found = paused_.find(destination);
  if (found != paused_.end()) remember(found->second, held);
}

std::vector<std::string> PausedPartitions::delivered(const Destination& destination,
                                                     Clock::time_point now) {
  std::lock_guard lock(mutex_);
  const auto found = paused_.find(destination);
  if (found == paused_.end()) return {};
  Pause pause = std::move(found->second);
  paused_.erase(found);
  --paused_topics_[destination.topic];
  spdlog::info(
      "partition {} resumed after {}: a delivery got through; waking the {} events "
      "this relay held for it",
      destination.name(), format_pause(paused_since(pause.since, now)), pause.held.size());
  return {std::make_move_iterator(pause.held.begin()), std::make_move_iterator(pause.held.end())};
}

PausedPartitions::Verdict PausedPartitions::verdict(const Destination& destination,
                                                    const std::string& event_id) {
  if (destination.partition < 0) return Verdict::kSend;
  std::lock_guard lock(mutex_);
  const auto found = paused_.find(destination);
  if (found == paused_.end()) return Verdict::kSend;
  // A probe is sent once; sent again it would be a probe the partition did not ask for.
  Pause& pause = found->second;
  if (pause.probe_ids.erase(event_id) == 0) {
    if (pause.probe_allowance == 0) return Verdict::kHold;
    --pause.probe_allowance;
  }
  // Bounded: a probe whose report never comes (its batch released) is not waited for.
  if (pause.probes_sent.size() >= 10 * settings_.probe_events) pause.probes_sent.clear();
  pause.probes_sent.insert(event_id);
  return Verdict::kProbe;
}

bool PausedPartitions::topic_paused(const std::string& topic) const {
  std::lock_guard lock(mutex_);
  const auto found = paused_topics_.find(topic);
  return found != paused_topics_.end() && found->second > 0;
}

bool PausedPartitions::any_paused() const {
  std::lock_guard lock(mutex_);
  return !paused_.empty();
}

std::vector<std::string> PausedPartitions::due_probes(Clock::time_point now) {
  std::vector<std::string> woken;
  std::lock_guard lock(mutex_);
  for (auto entry = paused_.begin(); entry != paused_.end();) {
    const Destination& destination = entry->first;
    Pause& pause = entry->second;
    if (pause.held.empty() && now - pause.since >= settings_.recheck) {
      spdlog::info("partition {}: this relay holds no event for it any more; no longer paused",
                   destination.name());
      --paused_topics_[destination.topic];
      entry = paused_.erase(entry);
      continue;
    }
    ++entry;
    if (now < pause.next_probe) continue;
    // A probe nobody claimed (another relay took the rows, or they were published) is given
    // up at the next one: its ids go back to being held like the rest.
    pause.probe_ids.clear();
    pause.probe_allowance = settings_.probe_events;
    pause.next_probe = now + pause.probe_interval;
    // The oldest held events: their aggregates' heads, which must go first anyway.
    for (const std::string& id : pause.held) {
      if (pause.probe_ids.size() >= settings_.probe_events) break;
      pause.probe_ids.insert(id);
      woken.push_back(id);
    }
  }
  return woken;
}

std::string PausedPartitions::reason(const Destination& destination, Clock::time_point now) const {
  std::lock_guard lock(mutex_);
  const auto found = paused_.find(destination);
  if (found == paused_.end()) return destination.name();
  return destination.name() + ": " + found->second.error + " (paused for " +
         format_pause(paused_since(found->second.since, now)) + ")";
}

Micros PausedPartitions::recheck_for(const Destination& destination, Clock::time_point now) const {
  constexpr Micros kShortest = std::chrono::seconds(10);
  std::lock_guard lock(mutex_);
  const auto found = paused_.find(destination);
  const Micros paused_for =
      found == paused_.end() ? Micros(0) : paused_since(found->second.since, now);
  return std::clamp(paused_for, std::min(kShortest, settings_.recheck), settings_.recheck);
}

std::map<std::string, size_t> PausedPartitions::paused_per_topic() const {
  std::lock_guard lock(mutex_);
  return paused_topics_;
}

uint64_t PausedPartitions::pauses_total() const {
  std::lock_guard lock(mutex_);
  return pauses_total_;
}

}  // namespace outbox
