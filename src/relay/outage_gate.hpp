#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "config/duration.hpp"
#include "publish/delivery_clock.hpp"

namespace outbox {

// What the relay's recent deliveries say about the Kafka cluster, shared by the workers of one
// process and read by /readyz and /metrics.
//
// The outage gate: when a whole batch fails the cluster's way (not enough replicas, no leader,
// timeouts: FailureKind::kTransient on every partition it touched) nothing is the
// events' fault. Their rows go back to PENDING with no attempt counted, and claiming more only
// leases rows to wait out their delivery timeout, so the gate pauses claims: one worker at a
// time claims a probe of a few events, at a growing interval, until a delivery gets through.
// Any delivery ends the outage, and every worker claims full batches again.
//
// Unknown topics: a topic (or partition) the cluster does not know may be about to appear
// (topic creation, partition growth, metadata propagation). Its events are retried without
// counting attempts until the topic has been unknown for the grace period; then they are
// FAILED with the reason. A delivery to the topic forgets it.
class OutageGate {
 public:
  using Clock = std::chrono::steady_clock;

  struct Settings {
    size_t probe_events = 10;  // the size of a probe batch
    Micros probe_interval_initial = std::chrono::seconds(1);
    Micros probe_interval_max = std::chrono::seconds(10);
    Micros unknown_topic_grace = std::chrono::minutes(5);
  };

  // Whether a worker may claim now, and how much.
  struct Admission {
    enum class Kind {
      kClaim,  // no outage: a full batch
      kProbe,  // an outage, and this worker probes: at most `limit` events
      kWait,   // an outage: another probe is out, or the next one is not due yet
    };
    Kind kind = Kind::kClaim;
    size_t limit = 0;
  };

  // `reports`: the producers' delivery reports (delivery_clock.hpp), when the gate should know
  // of a delivery before the batch that holds it settles; null in tests of the gate alone.
  explicit OutageGate(Settings settings, const DeliveryClock* reports = nullptr)
      : settings_(settings), reports_(reports) {}

  Admission admit(size_t batch_size, Clock::time_point now);
  // A probe claim sent nothing (no rows, no byte budget, a database error): its slot is free
  // again and the next probe is due after the current interval; the outage stands. When
  // `only_paused` (every row it read was a paused partition's, held unsent), the next probe is
  // due at once and reads a full batch: the rows of healthy partitions may be behind them.
  void probe_not_sent(Clock::time_point now, bool only_paused = false);
  // What one settled batch says about the cluster.
  struct Settled {
    size_t delivered = 0;  // events delivered
    size_t outage = 0;     // events that failed the outage way
    // Of `outage`, those on partitions paused before the batch settled (paused_partitions.hpp):
    // a paused partition's probes, mostly.
    size_t on_paused_partitions = 0;
    std::string outage_error;  // the first: "NOT_ENOUGH_REPLICAS: ... on outbox.order[2]"
    bool probe = false;        // the gate's own probe
    Clock::time_point claimed_at{};
  };
  // A batch settled. A batch that failed whole starts an outage only if nothing at all was
  // delivered since it was claimed, settled or only reported (while other partitions take
  // deliveries, its partitions are paused on their own and claims go on), and only if some of its
  // failures fell on a partition not paused yet: a batch of nothing but a paused partition's probe
  // fails whole as expected, and says nothing about the rest of the cluster. Its claim may simply
  // have found nothing else due (the other partitions' events all published, or claimed by this
  // worker's next batch, which settles after it).
  void settled(const Settled& batch, Clock::time_point now);

  // "NOT_ENOUGH_REPLICAS: ... on outbox.order[2], for 45s" while claims are paused.
  std::optional<std::string> outage(Clock::time_point now) const;
  uint64_t outages_total() const;

  struct UnknownTopicVerdict {
    bool give_up = false;  // unknown for longer than the grace: FAILED with the reason
    Micros unknown_for{};
    Micros retry_in{};  // when not giving up: defer the row this long
  };
  UnknownTopicVerdict unknown_topic(const std::string& topic, Clock::time_point now);
  void delivered_to(const std::string& topic);
  Micros unknown_topic_grace() const { return settings_.unknown_topic_grace; }
  // Unknown topics remembered: those a row asked about lately (kForgetUnknownTopicAfter).
  size_t unknown_topics_held() const;

 private:
  Settings settings_;
  const DeliveryClock* reports_;
  mutable std::mutex mutex_;
  bool in_outage_ = false;
  Clock::time_point outage_since_{};
  std::string outage_error_;
  bool probe_out_ = false;
  bool wide_probe_ = false;            // the last probe found only paused partitions' rows
  Clock::time_point last_delivery_{};  // the last settled batch with a delivery
  Clock::time_point next_probe_{};
  Micros probe_interval_{};
  uint64_t outages_total_ = 0;
  // Topic names come from row data (outbox.{aggregate_type}): one entry per name ever seen would
  // grow for as long as the relay runs. An entry no row asked about for the grace plus this
  // long is dropped (its rows were parked, or stopped coming); asked again, its grace restarts.
  static constexpr std::chrono::seconds kForgetUnknownTopicAfter{60};
  struct UnknownTopic {
    Clock::time_point since;
    Clock::time_point asked;  // the last row that asked about it
  };
  std::map<std::string, UnknownTopic> unknown_since_;
  Clock::time_point next_forget_{};
};

}  // namespace outbox
