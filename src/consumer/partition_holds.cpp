#include "partition_holds.hpp"

namespace outbox::consumer {

const PartitionHolds::Hold& PartitionHolds::failed(const TopicPartition& partition, int64_t offset,
                                                   Clock::time_point now, bool counts) {
  Hold& hold = holds_[partition];
  auto backoff = backoffs_.try_emplace(partition, backoff_initial_, backoff_max_).first;
  if (hold.offset != offset) {
    hold.attempts = 0;
    hold.counted = 0;
    backoff->second.reset();
  }
  hold.offset = offset;
  ++hold.attempts;
  if (counts) ++hold.counted;
  hold.resume_at = now + backoff->second.next();
  hold.paused = true;
  return hold;
}

int PartitionHolds::counted_failures(const TopicPartition& partition, int64_t offset) const {
  const auto found = holds_.find(partition);
  return found != holds_.end() && found->second.offset == offset ? found->second.counted : 0;
}

void PartitionHolds::rewind_again(const TopicPartition& partition, Clock::time_point now) {
  const auto found = holds_.find(partition);
  if (found == holds_.end()) return;
  found->second.paused = true;
  found->second.resume_at = now;
}

void PartitionHolds::settled(const TopicPartition& partition) {
  forget(partition);
}

void PartitionHolds::forget(const TopicPartition& partition) {
  holds_.erase(partition);
  backoffs_.erase(partition);
}

std::vector<TopicPartition> PartitionHolds::take_due(Clock::time_point now) {
  std::vector<TopicPartition> due;
  for (auto& [partition, hold] : holds_) {
    if (hold.paused && hold.resume_at <= now) {
      hold.paused = false;
      due.push_back(partition);
    }
  }
  return due;
}

bool PartitionHolds::may_process(const TopicPartition& partition, int64_t offset) const {
  const auto found = holds_.find(partition);
  if (found == holds_.end()) return true;
  return !found->second.paused && offset <= found->second.offset;
}

const PartitionHolds::Hold* PartitionHolds::find(const TopicPartition& partition) const {
  const auto found = holds_.find(partition);
  return found == holds_.end() ? nullptr : &found->second;
}

std::optional<PartitionHolds::Clock::time_point> PartitionHolds::next_resume() const {
  std::optional<Clock::time_point> next;
  for (const auto& [partition, hold] : holds_) {
    if (hold.paused && (!next || hold.resume_at < *next)) next = hold.resume_at;
  }
  return next;
}

}  // namespace outbox::consumer
