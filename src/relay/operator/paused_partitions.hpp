#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "config/duration.hpp"
#include "publish/publisher.hpp"

namespace outbox {

// Sick partitions, paused one by one, so one topic (or partition) that the cluster cannot
// write to does not stall the others.
//
// A partition is paused when deliveries to it fail the cluster's way (not enough replicas, no
// leader, timeouts) while none of its events got through. Its events are not released to
// PENDING, where they would come first in every claim (they keep their created_at) and be
// sent, and time out, again and again: they are deferred (RETRY, no attempt counted, a long
// recheck) with a last_error that names the partition, and rows a later claim reads for a
// paused partition are deferred the same way without being sent. A probe wakes a few of the
// partition's held events at a growing interval; the first delivery to the partition resumes
// it and wakes every event this process held for it, which then flow again in order (they are
// their aggregates' oldest unpublished events; the versions behind them wait BLOCKED as
// usual).
//
// What this process holds is remembered here (the event ids, up to kMaxRememberedIds per
// partition): a relay that dies forgets its holds, and its held rows come back at their
// recheck time (relay.partition_recheck) to whichever relay claims them.
//
// Only partitions: an event whose partition cannot be known before it is sent (a null key,
// a partitioner other than murmur2) is sent, and held only once a delivery report names its
// partition.
class PausedPartitions {
 public:
  using Clock = std::chrono::steady_clock;

  struct Settings {
    size_t probe_events = 10;
    Micros probe_interval_initial = std::chrono::seconds(1);
    Micros probe_interval_max = std::chrono::seconds(10);
    // How long a held row waits before a relay that no longer remembers it (a restart, another
    // relay) claims it again: the safety net, not the way back (the probes are).
    Micros recheck = std::chrono::minutes(5);
  };

  // The last_error prefix of a held row; outboxctl backlog groups rows by it.
  static constexpr const char* kErrorPrefix = "partition paused: ";

  explicit PausedPartitions(Settings settings) : settings_(settings) {}

  // Deliveries to `destination` failed the cluster's way (`error`, e.g. "_MSG_TIMED_OUT: ...")
  // and none got through: pauses the partition (or, when paused and `held` holds a probe, the
  // probe failed: the next one comes later). `held` are the event ids now deferred for it.
  // True when this call paused it; false when it was paused already.
  bool failed(const Destination& destination, const std::string& error,
              const std::vector<std::string>& held, Clock::time_point now);
  // Rows a claim read for a paused partition and deferred without sending.
  void held_at_claim(const Destination& destination, const std::vector<std::string>& held);
  // A delivery to `destination` got through: resumes it if paused. Returns the ids to wake.
  std::vector<std::string> delivered(const Destination& destination, Clock::time_point now);

  // What a claim does with an event for `destination`: send it (the partition is not paused),
  // hold it, or send it as the paused partition's probe (once).
  enum class Verdict { kSend, kHold, kProbe };
  Verdict verdict(const Destination& destination, const std::string& event_id);
  // Whether any partition of `topic` is paused (cheap: checked before a partition is computed).
  bool topic_paused(const std::string& topic) const;
  bool any_paused() const;

  // Probes due now: per paused partition, a few held ids to wake, oldest first. Each is sent
  // by whichever claim reads it next; this relay's next claims also send up to probe_events
  // of the partition's events they read, whichever they are (verdict kProbe). A partition this
  // relay holds nothing for any more (its rows came back at their recheck to another relay) and
  // that stayed paused for a recheck period is forgotten: nothing is left to probe it with.
  std::vector<std::string> due_probes(Clock::time_point now);

  // "_MSG_TIMED_OUT: ... (paused for 12s)", for the row's last_error and the log.
  std::string reason(const Destination& destination, Clock::time_point now) const;
  // Paused partitions per topic, for the gauge: every topic that had one, 0 once resumed.
  std::map<std::string, size_t> paused_per_topic() const;
  uint64_t pauses_total() const;
  // How long an event held for `destination` now waits before any relay claims it again: as
  // long as the partition has been paused so far, between 10 s and relay.partition_recheck. A
  // relay killed early in a pause forgets its holds; what it held then comes back within
  // seconds, not minutes, and a long pause costs few rechecks.
  Micros recheck_for(const Destination& destination, Clock::time_point now) const;

  // A partition remembers at most this many held ids; the rest come back at their recheck.
  static constexpr size_t kMaxRememberedIds = 200000;

 private:
  struct Pause {
    Clock::time_point since;
    std::string error;
    Micros probe_interval{};
    Clock::time_point next_probe;
    std::set<std::string> probe_ids;  // woken, to be sent when claimed
    // Events of the partition the next claims may send as the probe, whichever they are: the
    // held rows a probe wakes may have gone to another relay (or been published by it), and a
    // relay whose probes never reach it would hold the partition's events for ever.
    size_t probe_allowance = 0;
    // Claimed and sent as probes, until their reports come: a failure among them is a failed
    // probe (the next one waits longer), not just more of the partition's events failing.
    std::set<std::string> probes_sent;
    std::deque<std::string> held;  // oldest first
    std::set<std::string> held_set;
  };
  void remember(Pause& pause, const std::vector<std::string>& ids);

  Settings settings_;
  mutable std::mutex mutex_;
  std::map<Destination, Pause> paused_;
  // topic -> paused partitions; a topic stays at 0 once resumed (the gauge's series goes to 0
  // rather than vanishing). Only topics a delivery failed on: real ones, a bounded set.
  std::map<std::string, size_t> paused_topics_;
  uint64_t pauses_total_ = 0;
};

}  // namespace outbox
