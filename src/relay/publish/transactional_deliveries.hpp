#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "publish/delivery_reports.hpp"
#include "publish/driven_deliveries.hpp"
#include "publish/publisher.hpp"
#include "publish/transaction_pool.hpp"

namespace outbox {

// The deliveries of one batch sent as one Kafka transaction (relay.ordering: transactional).
// Its own thread waits for every delivery report, then commits if all were acknowledged and
// aborts otherwise, so a read_committed consumer sees the whole batch or nothing of it: an
// aggregate's versions go together, and no failure leaves a later version visible without an
// earlier one.
//
// Outcomes after the end:
// - committed: every report as the broker gave it (kDelivered);
// - aborted: each failed event keeps its own report (so the failure policy judges its own
//   error); every other one is kNotDelivered _PREV_IN_PROGRESS, which releases it without an
//   attempt. A commit the coordinator refused gives every event the commit's error instead;
// - fate unknown (fatal error, commit timeout): every event kMaybeDelivered with that error,
//   never marked; published again later, a duplicate only read_committed consumers can see.
class TransactionalDeliveries final : public DrivenDeliveries {
 public:
  // `batch` holds the reports of the messages produced inside `transaction`; `end_timeout`
  // bounds the commit or abort (the producer's delivery timeout).
  TransactionalDeliveries(std::unique_ptr<TransactionPool::Transaction> transaction,
                          std::unique_ptr<DeliveryReports> batch, Micros end_timeout);
  ~TransactionalDeliveries() override;

 private:
  void drive();
  // The outcomes once the transaction ended as `end`.
  void settle(const TransactionEnd& end);

  std::unique_ptr<TransactionPool::Transaction> transaction_;
  std::unique_ptr<DeliveryReports> batch_;
  Micros end_timeout_;
};

}  // namespace outbox
