#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "publish/kafka_producer.hpp"
#include "publish/kafka_settings.hpp"
#include "publish/producer_slots.hpp"

namespace outbox {

// relay.pipelined_chains: the producers that send a batch holding several versions of an
// aggregate all at once (pipelined_deliveries.hpp), one batch per producer at a time.
//
// Why a producer per batch: these producers have no message timeout (a timeout is the one
// failure librdkafka's gapless guarantee does not cover), so a batch whose reports do not come
// in time is given up by a purge, and a purge takes everything the producer holds. With one
// batch per producer it takes that batch's messages and no other's. A producer that was purged,
// hit a fatal error or reported any failure is replaced before its next batch: the next batch
// then starts on a new producer id with fresh sequence numbers, whatever librdkafka made of the
// old producer's failed sequence.
// A gapless producer's slot (producer_slots.hpp).
struct GaplessSlot {
  std::shared_ptr<ProducerHandle> producer;  // null: to create at the next acquire
  bool busy = false;
};

class GaplessPool : public ProducerSlots<GaplessSlot> {
 public:
  GaplessPool(KafkaSettings kafka, size_t producers, ProducerCounters counters);
  ~GaplessPool();
  GaplessPool(const GaplessPool&) = delete;
  GaplessPool& operator=(const GaplessPool&) = delete;

  // One producer, held by one batch until this goes.
  class Lease {
   public:
    Lease(GaplessPool& pool, size_t slot, std::shared_ptr<ProducerHandle> producer)
        : pool_(pool), slot_(slot), producer_(std::move(producer)) {}
    ~Lease();
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;

    const std::shared_ptr<ProducerHandle>& producer() const { return producer_; }
    // The producer must not serve another batch (purged, fatal, or it reported a failure).
    void retire() { retire_ = true; }

   private:
    GaplessPool& pool_;
    size_t slot_;
    std::shared_ptr<ProducerHandle> producer_;
    bool retire_ = false;
  };

  struct Acquired {
    std::unique_ptr<Lease> lease;  // null: see `error`
    std::string error;
  };
  // Waits until `deadline` for a free producer, creating it if it is new or was retired.
  Acquired acquire(std::chrono::steady_clock::time_point deadline);

 private:
  void give_back(size_t slot, bool retire);

  KafkaSettings kafka_;
  ProducerCounters counters_;
  int generations_ = 0;  // producers created, for their log names
};

}  // namespace outbox
