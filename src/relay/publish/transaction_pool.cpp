#include "publish/transaction_pool.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <thread>

namespace outbox {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

// Pause between tries of a commit or abort that failed retriably (a coordinator moving, say).
constexpr milliseconds kRetryPause{50};
// The longest one initialisation waits: init_transactions finds the coordinator and fences
// the id's earlier producers, which takes a few round trips on a healthy cluster.
constexpr milliseconds kInitTimeoutMax{10000};
// Producer ids feed ClientStatistics by id: pool producers keep clear of the shared one's.
constexpr int kGenerationsPerSlot = 100000;

int remaining_ms(steady_clock::time_point deadline, milliseconds cap) {
  const auto left = std::chrono::duration_cast<milliseconds>(deadline - steady_clock::now());
  return static_cast<int>(std::clamp(left, milliseconds(1), cap).count());
}

std::string describe(const rd_kafka_error_t* error) {
  return std::string(rd_kafka_error_name(error)) + ": " + rd_kafka_error_string(error);
}

// A newer producer with the same transactional.id took over (KIP-588's PRODUCER_FENCED, or
// librdkafka's own _FENCED). INVALID_PRODUCER_EPOCH is not one: the coordinator also bumps the
// epoch when it aborts a transaction that outlived transaction.timeout.ms.
bool is_fenced(int code) {
  return code == RD_KAFKA_RESP_ERR_PRODUCER_FENCED || code == RD_KAFKA_RESP_ERR__FENCED;
}

// Calls `call(timeout_ms)` (commit or abort) again while it fails retriably (a coordinator
// moving, say), until `timeout`; returns its last error, null once it succeeded.
template <typename Call>
RdKafkaError retry_until_done(Micros timeout, const Call& call) {
  const auto deadline = steady_clock::now() + timeout;
  const auto cap = std::chrono::duration_cast<milliseconds>(timeout);
  for (;;) {
    RdKafkaError error(call(remaining_ms(deadline, cap)));
    if (!error || rd_kafka_error_txn_requires_abort(error.get()) ||
        rd_kafka_error_is_fatal(error.get()) || !rd_kafka_error_is_retriable(error.get()) ||
        steady_clock::now() >= deadline) {
      return error;
    }
    std::this_thread::sleep_for(kRetryPause);
  }
}

}  // namespace

TransactionPool::TransactionPool(KafkaSettings kafka, TransactionSettings settings,
                                 ProducerCounters counters)
    : ProducerSlots(settings.producers),
      kafka_(std::move(kafka)),
      settings_(std::move(settings)),
      counters_(counters) {
  for (size_t i = 0; i < slots_.size(); ++i) {
    slots_[i].transactional_id = settings_.id_prefix + "-" + std::to_string(i);
    slots_[i].replace = true;  // created on first use
  }
}

TransactionPool::~TransactionPool() = default;

TransactionPool::Begun TransactionPool::begin(steady_clock::time_point deadline) {
  size_t index = 0;
  {
    std::unique_lock lock(mutex_);
    const auto usable = [](const TransactionSlot& s) { return !s.busy && !s.fenced; };
    const auto free = [&] {
      return std::any_of(slots_.begin(), slots_.end(), usable) ||
             std::all_of(slots_.begin(), slots_.end(),
                         [](const TransactionSlot& s) { return s.fenced; });
    };
    if (!freed_.wait_until(lock, deadline, free)) {
      return Begun{nullptr, NotBegun{RD_KAFKA_RESP_ERR__QUEUE_FULL,
                                     "every transactional producer stayed busy until the "
                                     "batch's enqueue deadline"}};
    }
    while (index < slots_.size() && !usable(slots_[index]))
      ++index;
    if (index == slots_.size()) {
      return Begun{nullptr,
                   NotBegun{RD_KAFKA_RESP_ERR__FENCED,
                            "every transactional producer of " + settings_.id_prefix +
                                " was fenced by a newer one with its transactional.id: another "
                                "relay runs with this relay.instance_id"}};
    }
    slots_[index].busy = true;
  }
  // Busy: this thread alone touches the slot until it is given back.
  TransactionSlot& slot = slots_[index];
  NotBegun failure = prepare(slot, deadline);
  if (failure.error_code == 0) {
    const RdKafkaError error(rd_kafka_begin_transaction(slot.producer->get()));
    if (!error) {
      // Member by member: clang-analyzer takes the unique_ptr in a braced return for a leak.
      Begun begun;
      begun.transaction = std::make_unique<Transaction>(*this, index, slot.producer);
      return begun;
    }
    failure = NotBegun{rd_kafka_error_code(error.get()),
                       slot.transactional_id + ": begin_transaction: " + describe(error.get())};
    if (rd_kafka_error_is_fatal(error.get())) slot.replace = true;
  }
  give_back(index, slot.replace, is_fenced(failure.error_code));
  return Begun{nullptr, std::move(failure)};
}

TransactionPool::NotBegun TransactionPool::prepare(TransactionSlot& slot,
                                                   steady_clock::time_point deadline) {
  if (slot.producer && is_fenced(slot.producer->fatal_code())) {
    spdlog::critical(
        "transactional producer {} was fenced by a newer producer with its transactional.id "
        "({}): another relay runs with this relay.instance_id; this one publishes nothing "
        "more through it",
        slot.transactional_id, slot.producer->fatal_reason());
    return NotBegun{RD_KAFKA_RESP_ERR__FENCED, slot.transactional_id + ": fenced"};
  }
  if (slot.replace || (slot.producer && slot.producer->fatal())) {
    if (slot.producer && slot.generation > 0) {
      spdlog::warn("transactional producer {} replaced ({}); the new one aborts what it left open",
                   slot.transactional_id,
                   slot.producer->fatal() ? slot.producer->fatal_reason()
                                          : std::string("its last transaction's end is unknown"));
    }
    const auto index = static_cast<size_t>(&slot - slots_.data());
    const int id = static_cast<int>(index + 1) * kGenerationsPerSlot + ++slot.generation;
    const TransactionalIdentity identity{slot.transactional_id, settings_.timeout};
    Outcome<std::shared_ptr<ProducerHandle>> fresh =
        ProducerHandle::create(kafka_, id, counters_, ProducerRole{&identity});
    if (!fresh) return NotBegun{RD_KAFKA_RESP_ERR__FAIL, fresh.error().message};
    {
      // purge_all() and queue_length() read every slot's producer, busy or not.
      std::lock_guard lock(mutex_);
      slot.producer = std::move(fresh).value();
    }
    slot.initialised = false;
    slot.replace = false;
  }
  if (slot.initialised) return NotBegun{};
  // Registers the id with its coordinator and fences every earlier producer of it: their open
  // transactions are aborted before this one can begin. Retriable failures (no coordinator
  // yet, a broker down) leave the producer as it is for the next try.
  const RdKafkaError error(
      rd_kafka_init_transactions(slot.producer->get(), remaining_ms(deadline, kInitTimeoutMax)));
  if (error) {
    if (rd_kafka_error_is_fatal(error.get())) slot.replace = true;
    if (is_fenced(rd_kafka_error_code(error.get()))) {
      spdlog::critical("transactional producer {} fenced while initialising: {}",
                       slot.transactional_id, describe(error.get()));
    }
    return NotBegun{rd_kafka_error_code(error.get()),
                    slot.transactional_id + ": init_transactions: " + describe(error.get())};
  }
  slot.initialised = true;
  spdlog::info("transactional producer {} ready", slot.transactional_id);
  return NotBegun{};
}

void TransactionPool::initialise_all(steady_clock::time_point deadline) {
  for (size_t index = 0; index < slots_.size() && steady_clock::now() < deadline; ++index) {
    {
      std::lock_guard lock(mutex_);
      if (slots_[index].busy || slots_[index].fenced) continue;
      slots_[index].busy = true;
    }
    const NotBegun failure = prepare(slots_[index], deadline);
    if (failure.error_code != 0) {
      spdlog::warn("{}; it initialises when a batch needs it", failure.error);
    }
    give_back(index, false, is_fenced(failure.error_code));
  }
}

void TransactionPool::give_back(size_t slot, bool replace, bool fenced) {
  std::lock_guard lock(mutex_);
  slots_[slot].busy = false;
  slots_[slot].replace = slots_[slot].replace || replace;
  slots_[slot].fenced = slots_[slot].fenced || fenced;
  // All: a begin() waiting for a free producer must also learn that none is left.
  freed_.notify_all();
}

bool TransactionPool::all_fenced() {
  std::lock_guard lock(mutex_);
  return std::all_of(slots_.begin(), slots_.end(),
                     [](const TransactionSlot& s) { return s.fenced; });
}

const std::string& TransactionPool::Transaction::id() const {
  return pool_.slots_[slot_].transactional_id;
}

TransactionPool::Transaction::~Transaction() {
  if (!ended_) (void)abort(Micros(std::chrono::seconds(5)));
}

TransactionEnd TransactionPool::Transaction::commit(Micros timeout) {
  // Flushes the transaction's messages first; all of them have their reports by now.
  const RdKafkaError error = retry_until_done(
      timeout, [this](int ms) { return rd_kafka_commit_transaction(producer_->get(), ms); });
  if (!error) return finish(TransactionEnd{TransactionFate::kCommitted, 0, ""});
  const int code = rd_kafka_error_code(error.get());
  const std::string what = id() + ": commit_transaction: " + describe(error.get());
  if (rd_kafka_error_txn_requires_abort(error.get())) {
    TransactionEnd aborted = abort(timeout);
    if (aborted.fate == TransactionFate::kAborted) {
      aborted.error_code = code;
      aborted.error = what;
    }
    return aborted;
  }
  // Fatal, not retriable, or still failing at the deadline: the coordinator may have written
  // the commit markers or not.
  return finish(TransactionEnd{TransactionFate::kMaybeCommitted, code, what});
}

TransactionEnd TransactionPool::Transaction::abort(Micros timeout) {
  // Purges what is still queued, waits for what is in flight, then ends the transaction.
  const RdKafkaError error = retry_until_done(
      timeout, [this](int ms) { return rd_kafka_abort_transaction(producer_->get(), ms); });
  if (!error) return finish(TransactionEnd{TransactionFate::kAborted, 0, ""});
  // Never committed (no commit was asked for), but left open on the coordinator: the producer
  // that replaces this one aborts it when it initialises (same transactional.id), or the
  // coordinator does at its timeout; a producer that fenced this one already did.
  replace_ = true;
  return finish(TransactionEnd{TransactionFate::kAborted, rd_kafka_error_code(error.get()),
                               id() + ": abort_transaction: " + describe(error.get())});
}

TransactionEnd TransactionPool::Transaction::finish(TransactionEnd end) {
  if (!ended_) {
    ended_ = true;
    const bool fenced = is_fenced(end.error_code) || is_fenced(producer_->fatal_code());
    pool_.give_back(slot_, replace_ || end.fate == TransactionFate::kMaybeCommitted, fenced);
    if (fenced) {
      spdlog::critical(
          "transactional producer {} was fenced by a newer producer with its transactional.id: "
          "another relay runs with this relay.instance_id; its transaction did not commit",
          id());
    }
  }
  return end;
}

}  // namespace outbox
