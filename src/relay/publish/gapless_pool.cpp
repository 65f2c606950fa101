#include "publish/gapless_pool.hpp"

#include <librdkafka/rdkafka.h>
#include <spdlog/spdlog.h>

namespace outbox {
namespace {

// Generations of the gapless producers are numbered from here, apart from the shared
// producer's (1, 2, ...) in the logs.
constexpr int kFirstGaplessGeneration = 1000;

}  // namespace

GaplessPool::GaplessPool(KafkaSettings kafka, size_t producers, ProducerCounters counters)
    : ProducerSlots(producers), kafka_(std::move(kafka)), counters_(counters) {}

GaplessPool::~GaplessPool() = default;

GaplessPool::Lease::~Lease() {
  pool_.give_back(slot_, retire_);
}

GaplessPool::Acquired GaplessPool::acquire(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock lock(mutex_);
  size_t index = slots_.size();
  const auto free = [&] {
    for (index = 0; index < slots_.size(); ++index) {
      if (!slots_[index].busy) return true;
    }
    return false;
  };
  if (!freed_.wait_until(lock, deadline, free)) {
    return {nullptr, "no pipelined-chain producer free before the batch's enqueue deadline"};
  }
  GaplessSlot& slot = slots_[index];
  slot.busy = true;
  if (!slot.producer) {
    const int generation = kFirstGaplessGeneration + ++generations_;
    lock.unlock();
    Outcome<std::shared_ptr<ProducerHandle>> fresh =
        ProducerHandle::create(kafka_, generation, counters_, ProducerRole{nullptr, true});
    lock.lock();
    if (!fresh) {
      slot.busy = false;
      freed_.notify_one();
      return {nullptr, fresh.error().message};
    }
    slot.producer = std::move(fresh).value();
  }
  // Member by member: clang-analyzer takes the unique_ptr in a braced return for a leak.
  Acquired acquired;
  acquired.lease = std::make_unique<Lease>(*this, index, slot.producer);
  return acquired;
}

void GaplessPool::give_back(size_t index, bool retire) {
  std::shared_ptr<ProducerHandle> retired;
  {
    std::lock_guard lock(mutex_);
    GaplessSlot& slot = slots_[index];
    if (retire || (slot.producer && slot.producer->fatal())) retired = std::move(slot.producer);
    slot.busy = false;
  }
  freed_.notify_one();
  // Destroyed outside the lock (rd_kafka_destroy waits for its threads), once no batch holds
  // it: every report of its batch came, and the lease that held it is this one.
}

}  // namespace outbox
