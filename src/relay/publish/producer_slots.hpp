#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <vector>

#include "publish/kafka_producer.hpp"

namespace outbox {

// What the two producer pools (gapless_pool.hpp, transaction_pool.hpp) share: one slot per
// batch that can be in flight, each holding its producer (null until made) and busy while a
// batch holds it, under one mutex; freeing a slot wakes a waiter on `freed_`. `Slot` has at
// least `std::shared_ptr<ProducerHandle> producer` and `bool busy`.
template <typename Slot>
class ProducerSlots {
 public:
  // Gives up on every queued and in-flight message of every producer, busy ones too: that is
  // what a drain deadline is for.
  void purge_all() {
    for (const std::shared_ptr<ProducerHandle>& producer : producers())
      producer->purge();
  }
  // Messages the producers hold, for metrics.
  long queue_length() {
    long queued = 0;
    for (const std::shared_ptr<ProducerHandle>& producer : producers())
      queued += producer->queue_length();
    return queued;
  }

 protected:
  explicit ProducerSlots(size_t count) : slots_(count) {}

  std::mutex mutex_;
  std::condition_variable freed_;
  std::vector<Slot> slots_;

 private:
  // Read under the lock, used outside it: a purge can take a while, and each pointer keeps
  // its producer alive even if the slot replaces it meanwhile.
  std::vector<std::shared_ptr<ProducerHandle>> producers() {
    std::vector<std::shared_ptr<ProducerHandle>> out;
    const std::lock_guard lock(mutex_);
    for (const Slot& slot : slots_) {
      if (slot.producer) out.push_back(slot.producer);
    }
    return out;
  }
};

}  // namespace outbox
