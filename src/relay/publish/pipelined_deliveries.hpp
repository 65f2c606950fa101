#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "publish/delivery_reports.hpp"
#include "publish/driven_deliveries.hpp"
#include "publish/gapless_pool.hpp"
#include "publish/publisher.hpp"

namespace outbox {

// The deliveries of a claim holding several versions of an aggregate, all handed over at once
// on a gapless producer of the batch's own (relay.pipelined_chains, gapless_pool.hpp), instead
// of one wave per broker round trip (chained_deliveries.hpp).
//
// Why the order still holds. An aggregate's versions share a topic and a key (the publisher
// pipelines a batch only then), so they go to one partition, in produce order. On it the
// idempotent producer numbers them, and a broker appends a sequence number only right after
// the one before it: within one producer id, version 2 cannot land unless version 1 did.
// librdkafka could still give up on version 1 alone and go on with version 2 under a bumped
// epoch, but only for a message timeout (these producers have none) or for an error that
// enable.gapless.guarantee turns into a fatal error failing everything behind it. Across
// producers nothing new arises: a later copy of version 1 (after a purge or a lease expiry)
// comes after the first occurrence of whatever the earlier producer had landed, which was a
// prefix of the chain.
//
// Reports are awaited until `report_by`: when the shared producer's message timeout would
// have ended them (kafka.properties message.timeout.ms), and always before the batch's lease
// runs short. Then the producer is purged: every message not reported yet is given up, its
// report comes at once, and it reads as the timeout it stands for (_MSG_TIMED_OUT,
// kMaybeDelivered or kNotDelivered as librdkafka says, never marked). So a broker outage looks
// to the failure policy and the outage detection as it does on the shared producer.
// A producer the gapless guarantee stopped (a request failed for good) is purged at once: the
// failed event keeps its own error, the others read as purges (no attempt).
//
// Outcomes are the reports as librdkafka gave them, with one safety check: a version reported
// delivered behind one of its chain that was not is an inversion this design rules out; it is
// still marked (it is on Kafka), counted in `inversions`, and logged as an error. `batches`
// counts the batches settled this way.
class PipelinedDeliveries final : public DrivenDeliveries {
 public:
  // after[i]: index of events[i]'s predecessor in its chain, i for none; predecessors first.
  // `event_ids` name the events in the log.
  PipelinedDeliveries(std::unique_ptr<GaplessPool::Lease> lease,
                      std::unique_ptr<DeliveryReports> batch, std::vector<size_t> after,
                      std::vector<std::string> event_ids,
                      std::chrono::steady_clock::time_point report_by,
                      std::atomic<uint64_t>* inversions, std::atomic<uint64_t>* batches);
  ~PipelinedDeliveries() override;

 private:
  void drive();

  std::unique_ptr<GaplessPool::Lease> lease_;
  std::unique_ptr<DeliveryReports> batch_;
  std::vector<size_t> after_;
  std::vector<std::string> event_ids_;
  std::chrono::steady_clock::time_point report_by_;
  std::atomic<uint64_t>* inversions_;
  std::atomic<uint64_t>* batches_;  // pipelined batches settled
};

// How many versions of `outcomes` were reported delivered behind a version of their chain
// (after, as above) that was not; each one's index goes to `where`.
size_t count_inversions(const std::vector<DeliveryOutcome>& outcomes,
                        const std::vector<size_t>& after, std::vector<size_t>* where = nullptr);

}  // namespace outbox
