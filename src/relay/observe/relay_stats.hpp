#pragma once

#include <prometheus/histogram.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "publish/client_statistics.hpp"

namespace outbox {

// Process-wide counters, written by the workers and read by the progress log (and metrics).
struct RelayStats {
  std::atomic<uint64_t> claims{0};  // claim transactions that returned rows
  std::atomic<uint64_t> events_claimed{0};
  std::atomic<uint64_t> leases_reclaimed{0};  // rows taken over from an expired lease
  std::atomic<uint64_t> events_parked{0};     // held back by an older event: BLOCKED
  // Left PENDING by a claim because the aggregate's oldest unpublished event was in flight.
  std::atomic<uint64_t> claim_waits{0};
  // Claimed as a version right behind its aggregate's head in the same claim (a chain).
  std::atomic<uint64_t> events_chained{0};
  std::atomic<uint64_t> events_published{0};   // confirmed by the broker and marked
  std::atomic<uint64_t> marks_refused{0};      // confirmed, but the lease was lost: not marked
  std::atomic<uint64_t> marks_abandoned{0};    // confirmed, mark failed until the lease ended
  std::atomic<uint64_t> deliveries_failed{0};  // not or maybe delivered
  std::atomic<uint64_t> events_released{0};    // back to PENDING, no attempt counted
  std::atomic<uint64_t> events_held{0};  // deferred for a paused partition, no attempt counted
  std::atomic<uint64_t> events_held_by_operator{0};  // held for an operator's pause (outboxctl)
  std::atomic<uint64_t> rate_limited{0};     // claims that waited for relay.max_events_per_second
  std::atomic<uint64_t> events_retrying{0};  // a failed attempt, parked as RETRY
  std::atomic<uint64_t> events_failed{0};    // parked as FAILED (permanent or out of attempts)
  std::atomic<uint64_t> db_errors{0};
  std::atomic<uint64_t> broker_errors{0};  // librdkafka error callbacks (not fatal)
  // Versions acknowledged behind an earlier one of their pipelined chain that was not
  // (pipelined_deliveries.hpp): an inversion the design rules out, counted should it happen.
  std::atomic<uint64_t> order_inversions{0};
  std::atomic<uint64_t> pipelined_batches{0};  // batches sent all at once on gapless producers
  std::atomic<int64_t> events_in_flight{0};
  // librdkafka's own request retries, timeouts, transmit errors and disconnects, from its
  // statistics, summed over every producer of the process.
  ClientStatistics kafka_requests;

  // Latencies, in seconds: one claim transaction; claim -> broker ack; commit (created_at,
  // database clock) -> broker ack.
  prometheus::Histogram claim_seconds{
      {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}};
  prometheus::Histogram claim_to_ack_seconds{
      {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}};
  prometheus::Histogram created_to_ack_seconds{
      {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 3600}};

  // Failed deliveries by librdkafka error name ("MSG_TIMED_OUT", "MSG_SIZE_TOO_LARGE", ...).
  void count_failure(const std::string& reason) {
    std::lock_guard lock(reasons_mutex_);
    ++failures_by_reason_[reason];
  }
  std::map<std::string, uint64_t> failures_by_reason() const {
    std::lock_guard lock(reasons_mutex_);
    return failures_by_reason_;
  }

 private:
  mutable std::mutex reasons_mutex_;
  std::map<std::string, uint64_t> failures_by_reason_;
};

}  // namespace outbox
