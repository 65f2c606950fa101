#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backoff.hpp"
#include "config/duration.hpp"

namespace outbox::consumer {

using TopicPartition = std::pair<std::string, int32_t>;

// The partitions held back after a failed message. A failed message is never skipped: its
// partition is paused and rewound to it, and resumed when its pause is over, so the same
// message comes back first; the other partitions keep flowing meanwhile.
//
// The bookkeeping only (no librdkafka): which message each partition waits to retry, how many
// attempts it had, and when it may run again.
class PartitionHolds {
 public:
  using Clock = std::chrono::steady_clock;

  PartitionHolds(Micros backoff_initial, Micros backoff_max)
      : backoff_initial_(backoff_initial), backoff_max_(backoff_max) {}

  struct Hold {
    int64_t offset = -1;  // the message to retry
    int attempts = 0;     // failed attempts at it so far
    int counted = 0;      // ... of which count toward consumer.max_attempts
    Clock::time_point resume_at;
    bool paused = true;  // still paused (false once resumed, until the retry settles)
  };

  // A failed attempt at `offset`: holds the partition and returns the hold (attempts counts
  // consecutive failures of this same offset; the pause doubles with each; `counts`: the
  // failure was the message's own, see ApplyOutcome::counts_attempt).
  const Hold& failed(const TopicPartition& partition, int64_t offset, Clock::time_point now,
                     bool counts);
  // Counted failures of the message at `offset` so far (0 when the partition holds another).
  int counted_failures(const TopicPartition& partition, int64_t offset) const;

  // A resumed partition delivered a message past its held offset: the rewind did not take
  // (e.g. a seek that timed out). Pause and rewind again at once, without counting an attempt.
  void rewind_again(const TopicPartition& partition, Clock::time_point now);

  // The message at `offset` settled (taken effect, duplicate, or dead-lettered): release.
  void settled(const TopicPartition& partition);

  // The partition was revoked: whatever it held is the next owner's to retry.
  void forget(const TopicPartition& partition);

  // Paused holds whose pause is over at `now`; they are marked resumed.
  std::vector<TopicPartition> take_due(Clock::time_point now);

  // Whether a message at `offset` of `partition` may be processed now: a partition not held,
  // or resumed and delivering its held message (or an earlier one, after a rebalance).
  // False for a paused partition and for offsets past the held one (the rewind has not
  // happened yet: processing it would skip the held message).
  bool may_process(const TopicPartition& partition, int64_t offset) const;

  const Hold* find(const TopicPartition& partition) const;
  std::optional<Clock::time_point> next_resume() const;
  size_t size() const { return holds_.size(); }

 private:
  Micros backoff_initial_;
  Micros backoff_max_;
  std::map<TopicPartition, Hold> holds_;
  std::map<TopicPartition, Backoff> backoffs_;
};

}  // namespace outbox::consumer
