#include "outage_gate.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>

namespace outbox {
namespace {

Micros since(OutageGate::Clock::time_point start, OutageGate::Clock::time_point now) {
  return std::chrono::duration_cast<Micros>(now - start);
}

}  // namespace

OutageGate::Admission OutageGate::admit(size_t batch_size, Clock::time_point now) {
  std::lock_guard lock(mutex_);
  if (!in_outage_) return {Admission::Kind::kClaim, batch_size};
  if (probe_out_ || now < next_probe_) return {Admission::Kind::kWait, 0};
  probe_out_ = true;
  return {Admission::Kind::kProbe,
          wide_probe_ ? batch_size : std::min(batch_size, settings_.probe_events)};
}

void OutageGate::probe_not_sent(Clock::time_point now, bool only_paused) {
  std::lock_guard lock(mutex_);
  if (!probe_out_) return;
  probe_out_ = false;
  wide_probe_ = only_paused;
  if (only_paused) {
    next_probe_ = now;
    return;
  }
  // Nothing sent is nothing learnt: the outage stands until a delivery gets through. A probe
  // that found no rows (every row still in flight in the batches the outage caught, waiting
  // out their delivery timeout) tries again at the same interval rather than opening the
  // gate to full batches the cluster would fail alike.
  if (in_outage_) next_probe_ = now + probe_interval_;
}

void OutageGate::settled(const Settled& batch, Clock::time_point now) {
  std::lock_guard lock(mutex_);
  if (batch.probe) {
    probe_out_ = false;
    wide_probe_ = false;
  }
  if (batch.delivered > 0) {
    last_delivery_ = now;
    if (in_outage_) {
      spdlog::info("kafka outage over after {}: deliveries get through again; claiming again",
                   format_pause(since(outage_since_, now)));
    }
    in_outage_ = false;
    return;
  }
  if (batch.outage == 0) return;
  if (!in_outage_) {
    const Clock::time_point delivered_at =
        reports_ == nullptr ? last_delivery_ : std::max(last_delivery_, reports_->last());
    if (delivered_at > batch.claimed_at) return;             // the rest of the cluster works
    if (batch.outage == batch.on_paused_partitions) return;  // only known-sick partitions
    in_outage_ = true;
    outage_since_ = now;
    outage_error_ = batch.outage_error;
    ++outages_total_;
    probe_interval_ = settings_.probe_interval_initial;
    next_probe_ = now + probe_interval_;
    spdlog::warn(
        "kafka outage: every event of a batch failed the cluster's way ({}): no attempts "
        "counted, nothing parked; claims paused, probing with {} events at a time",
        batch.outage_error, settings_.probe_events);
    return;
  }
  outage_error_ = batch.outage_error;
  if (batch.probe) {
    probe_interval_ = std::min(probe_interval_ * 2, settings_.probe_interval_max);
    next_probe_ = now + probe_interval_;
    spdlog::warn("kafka outage for {}: the probe failed too ({}); next probe in {}",
                 format_pause(since(outage_since_, now)), batch.outage_error,
                 format_pause(probe_interval_));
  }
}

std::optional<std::string> OutageGate::outage(Clock::time_point now) const {
  std::lock_guard lock(mutex_);
  if (!in_outage_) return std::nullopt;
  return outage_error_ + ", for " + format_pause(since(outage_since_, now));
}

size_t OutageGate::unknown_topics_held() const {
  std::lock_guard lock(mutex_);
  return unknown_since_.size();
}

uint64_t OutageGate::outages_total() const {
  std::lock_guard lock(mutex_);
  return outages_total_;
}

OutageGate::UnknownTopicVerdict OutageGate::unknown_topic(const std::string& topic,
                                                          Clock::time_point now) {
  std::lock_guard lock(mutex_);
  if (now >= next_forget_) {
    // At most once a minute: a walk over the entries, dropping those nobody asked about.
    next_forget_ = now + kForgetUnknownTopicAfter;
    std::erase_if(unknown_since_, [&](const auto& entry) {
      return now - entry.second.asked > settings_.unknown_topic_grace + kForgetUnknownTopicAfter;
    });
  }
  UnknownTopic& entry = unknown_since_.try_emplace(topic, UnknownTopic{now, now}).first->second;
  entry.asked = now;
  const Clock::time_point first = entry.since;
  UnknownTopicVerdict verdict;
  verdict.unknown_for = since(first, now);
  verdict.give_up = verdict.unknown_for >= settings_.unknown_topic_grace;
  // Looked at again within the grace, and at least every 10 s: the topic may appear any time.
  verdict.retry_in = std::clamp<Micros>(settings_.unknown_topic_grace - verdict.unknown_for,
                                        std::chrono::seconds(1), std::chrono::seconds(10));
  return verdict;
}

void OutageGate::delivered_to(const std::string& topic) {
  std::lock_guard lock(mutex_);
  if (unknown_since_.erase(topic) != 0) {
    spdlog::info("topic {} known again: deliveries to it get through", topic);
  }
}

}  // namespace outbox
