#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "config/duration.hpp"
#include "publish/kafka_producer.hpp"
#include "publish/kafka_settings.hpp"
#include "publish/producer_slots.hpp"

namespace outbox {

// relay.ordering: transactional. Each batch is one Kafka transaction on a producer of its own:
// a consumer reading read_committed sees all of a batch or none of it, so an aggregate's
// versions can be sent together (no wave per version) without a failure leaving version 3
// visible while version 2 is not.
struct TransactionSettings {
  // transactional.id of producer k is "<id_prefix>-<k>". Stable across restarts of one relay
  // (relay.instance_id), so a restarted relay fences its predecessor's producers and aborts
  // their open transactions at once instead of after transaction.timeout.ms.
  std::string id_prefix;
  // One per batch that can be in flight (workers x pipeline depth); 0: no transactions.
  size_t producers = 0;
  // transaction.timeout.ms unless kafka.properties sets it: the lease, so the coordinator
  // aborts a crashed relay's transaction about when its rows can be claimed again.
  Micros timeout{};
};

// How a transaction ended.
enum class TransactionFate {
  kCommitted,       // every message is visible to read_committed consumers
  kAborted,         // none is, nor will be (aborted, or never committed and left to abort)
  kMaybeCommitted,  // unknown (a fatal error or a timeout while committing)
};

struct TransactionEnd {
  TransactionFate fate = TransactionFate::kMaybeCommitted;
  int error_code = 0;  // rd_kafka_resp_err_t of the failure; 0 when committed
  std::string error;   // "ERR_NAME: what librdkafka said"
};

// The transactional producers of one process. A producer serves one transaction at a time;
// begin() hands out a free one with a transaction begun, the transaction's end gives it back.
// A producer that hit a fatal error (fenced by a newer one with its id, for instance) is
// replaced by a new one with the same transactional.id, whose initialisation aborts whatever
// the old one left open.
// A transactional producer's slot (producer_slots.hpp).
struct TransactionSlot {
  std::string transactional_id;
  std::shared_ptr<ProducerHandle> producer;
  int generation = 0;
  bool initialised = false;
  bool busy = false;
  bool replace = false;  // fatal, or its transaction's fate unknown: a new producer next time
  // A newer producer with this transactional.id exists: a successor under the same
  // relay.instance_id took over, or another live relay shares it. Never replaced, so two
  // relays cannot fence each other in turn forever; the slot serves nothing any more.
  bool fenced = false;
};

class TransactionPool : public ProducerSlots<TransactionSlot> {
 public:
  TransactionPool(KafkaSettings kafka, TransactionSettings settings, ProducerCounters counters);
  ~TransactionPool();
  TransactionPool(const TransactionPool&) = delete;
  TransactionPool& operator=(const TransactionPool&) = delete;

  // One producer inside a begun transaction; ends it (committed or aborted) exactly once.
  class Transaction {
   public:
    Transaction(TransactionPool& pool, size_t slot, std::shared_ptr<ProducerHandle> producer)
        : pool_(pool), slot_(slot), producer_(std::move(producer)) {}
    // A transaction never ended (only on an exception path) is aborted.
    ~Transaction();
    Transaction(const Transaction&) = delete;
    Transaction& operator=(const Transaction&) = delete;

    const std::shared_ptr<ProducerHandle>& producer() const { return producer_; }
    const std::string& id() const;
    // Commits (after librdkafka flushed every message of it); aborts when the commit says the
    // transaction must be. Retriable errors are retried until `timeout`.
    TransactionEnd commit(Micros timeout);
    TransactionEnd abort(Micros timeout);

   private:
    TransactionEnd finish(TransactionEnd end);

    TransactionPool& pool_;
    size_t slot_;
    std::shared_ptr<ProducerHandle> producer_;
    bool ended_ = false;
    bool replace_ = false;  // the producer cannot serve another transaction
  };

  // Why begin() gave no transaction.
  struct NotBegun {
    int error_code = 0;
    std::string error;
  };
  struct Begun {
    std::unique_ptr<Transaction> transaction;  // null: see `failure`
    NotBegun failure;
  };
  // Waits until `deadline` for a free producer (initialising it on first use), begins a
  // transaction on it.
  Begun begin(std::chrono::steady_clock::time_point deadline);

  // Initialises every producer not yet initialised, one after the other, until `deadline`: a
  // restarted relay's first claim then cannot go behind a transaction its predecessor left
  // open on a producer it would only use later. Those that fail initialise on first use.
  void initialise_all(std::chrono::steady_clock::time_point deadline);

  // Every producer was fenced: nothing can be published by this process any more.
  bool all_fenced();

 private:
  // Replaces the slot's producer if it must be; initialises it. Outside the lock, busy slot.
  NotBegun prepare(TransactionSlot& slot, std::chrono::steady_clock::time_point deadline);
  void give_back(size_t slot, bool replace, bool fenced);

  KafkaSettings kafka_;
  TransactionSettings settings_;
  ProducerCounters counters_;
};

}  // namespace outbox
