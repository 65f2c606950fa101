#pragma once

#include <cstdint>
#include <mutex>

namespace outbox {

// The payload bytes one relay process holds (claimed, handed to librdkafka, not yet settled),
// bounded by relay.max_in_flight_bytes, so memory follows bytes rather than rows: 500 rows of
// 900 KB are 450 MB, 500 rows of 1 KB half a megabyte.
//
// A worker reserves an allowance before it claims (at most `share`: the budget divided among
// the batches that can be in flight at once, so no worker starves the others), the claim takes
// rows while their payloads fit, the worker keeps what the claim used and gives back the rest,
// and releases what it kept when the batch settles. One row larger than any allowance is still
// taken, alone: only when nothing at all is in flight, so even then the process holds one row.
class ByteBudget {
 public:
  explicit ByteBudget(uint64_t limit) : limit_(limit) {}

  struct Allowance {
    uint64_t bytes = 0;  // payload bytes the claim may take
    bool alone = false;  // nothing else is in flight: one row larger than `bytes` may be taken
  };
  // Reserves up to `share` bytes (less when the budget has less left; 0 when it is spent).
  Allowance reserve(uint64_t share);
  // After the claim: keeps `used` of the `reserved` allowance (used may exceed reserved for a
  // row taken alone) and gives the rest back.
  void keep(uint64_t reserved, uint64_t used);
  // The batch settled: its payloads are gone.
  void release(uint64_t used);

  uint64_t limit() const { return limit_; }
  uint64_t in_use() const;

 private:
  uint64_t limit_;
  mutable std::mutex mutex_;
  uint64_t in_use_ = 0;
};

}  // namespace outbox
