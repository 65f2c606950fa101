#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "publish/driven_deliveries.hpp"
#include "publish/publisher.hpp"

namespace outbox {

// The deliveries of a claim that took several versions of one aggregate (ClaimedBatch::after):
// each version is handed to the producer only once the broker acknowledged the version before
// it, so no version is on Kafka before its predecessor's first occurrence, whatever fails in
// between. Sending them together would be faster but not safe: librdkafka documents that
// messages which time out leave gaps (1, 4, 5 land while 2, 3 do not), and a later version
// landing before an earlier one's first occurrence is the inversion per-aggregate ordering
// rules out.
//
// The batch goes in waves: every event with nothing before it, then the versions whose
// predecessor was acknowledged, and so on. A version whose predecessor was not acknowledged is
// not sent at all, nor is anything behind it: a kNotDelivered _PREV_IN_PROGRESS outcome, which
// the failure policy releases without an attempt. A wave not handed over by `enqueue_by` is not
// sent either (the same outcome), so every report still comes within the batch's lease.
//
// The first wave is handed over by the constructor, on the caller's thread. The later ones
// are sent by a thread of the batch's own, as soon as the wave before reported: the worker
// does not drive them, so the chains of every batch in flight advance while the worker
// claims, marks or waits for an older batch.
class ChainedDeliveries final : public DrivenDeliveries {
 public:
  // `events` must stay alive and unchanged until wait_until() returned true (the producer sends
  // their payloads without copying). after[i] is the index of events[i]'s predecessor, i for
  // none; predecessors come before their successors.
  ChainedDeliveries(Publisher& publisher, const std::vector<OutboxEvent>& events,
                    const std::vector<size_t>& after,
                    std::chrono::steady_clock::time_point enqueue_by,
                    std::function<void()> still_waiting);
  // Waits for the chain's thread, which ends once every wave it sent reported (each report
  // comes within the delivery timeout, sooner after a purge).
  ~ChainedDeliveries() override;
  // How many waves were handed over (the longest chain's length); once wait_until() was true.
  size_t waves_sent() const { return waves_sent_; }

 private:
  // Hands the wave over (or records why not) and makes it the one waited for.
  void send_wave(std::vector<size_t> wave);
  // Records the outcome of the wave waited for; returns the next wave (empty: all done).
  std::vector<size_t> settle_wave();
  // The chain's thread: waits for each wave's reports and sends the next one, until none is
  // left; then wakes wait_until().
  void drive();
  // events[index] and every version behind it: not sent, because of `why`.
  void not_sent(size_t index, const std::string& why);

  Publisher& publisher_;
  std::vector<const OutboxEvent*> events_;
  std::vector<size_t> after_;  // after_[i]: the version right before events[i]; i for none
  std::vector<size_t> next_;   // next_[i]: the version right behind events[i]; i for none
  std::chrono::steady_clock::time_point enqueue_by_;
  std::function<void()> still_waiting_;
  std::vector<size_t> wave_;  // indices of the wave waited for
  std::unique_ptr<InFlightDeliveries> current_;
  size_t waves_sent_ = 0;  // read, like outcomes_, only once wait_until() was true
};

}  // namespace outbox
