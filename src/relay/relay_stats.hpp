#pragma once

#include <atomic>
#include <cstdint>

namespace outbox {

// Process-wide counters, written by the workers and read by the progress log (and metrics).
struct RelayStats {
  std::atomic<uint64_t> claims{0};  // claim transactions that returned rows
  std::atomic<uint64_t> events_claimed{0};
  std::atomic<uint64_t> leases_reclaimed{0};   // rows taken over from an expired lease
  std::atomic<uint64_t> events_published{0};   // confirmed by the broker and marked
  std::atomic<uint64_t> marks_refused{0};      // confirmed, but the lease was lost: not marked
  std::atomic<uint64_t> marks_abandoned{0};    // confirmed, mark failed until the lease ended
  std::atomic<uint64_t> deliveries_failed{0};  // not or maybe delivered
  std::atomic<uint64_t> events_released{0};    // put back to PENDING after a failed delivery
  std::atomic<uint64_t> db_errors{0};
  std::atomic<int64_t> events_in_flight{0};
};

}  // namespace outbox
