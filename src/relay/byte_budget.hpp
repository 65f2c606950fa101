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
// and the batch gives back what it kept when it settles. One row larger than any allowance is
// still taken, alone: only when nothing at all is in flight, so even then the process holds one
// row.
//
// What is reserved or kept is a Hold: it gives its bytes back when it is destroyed, on every
// path (a failed claim, a send() that threw, a batch abandoned by an exception), so a budget
// can never be spent by bytes that nothing holds any more.
class ByteBudget {
 public:
  explicit ByteBudget(uint64_t limit) : limit_(limit) {}
  ByteBudget(const ByteBudget&) = delete;
  ByteBudget& operator=(const ByteBudget&) = delete;

  // Bytes taken from the budget, given back by the destructor. Move-only.
  class Hold {
   public:
    Hold() = default;
    Hold(Hold&& other) noexcept;
    Hold& operator=(Hold&& other) noexcept;
    Hold(const Hold&) = delete;
    Hold& operator=(const Hold&) = delete;
    ~Hold() { give_back(); }

    uint64_t bytes() const { return bytes_; }
    // After the claim: holds `used` instead (more than before for a row taken alone, less
    // when the rows took less than the allowance) and gives the difference back.
    void resize(uint64_t used);
    void give_back();

   private:
    friend class ByteBudget;
    Hold(ByteBudget* budget, uint64_t bytes) : budget_(budget), bytes_(bytes) {}

    ByteBudget* budget_ = nullptr;
    uint64_t bytes_ = 0;
  };

  struct Allowance {
    Hold held;           // payload bytes the claim may take
    bool alone = false;  // nothing else is in flight: one row larger than held may be taken
  };
  // Reserves up to `share` bytes (less when the budget has less left; 0 when it is spent).
  Allowance reserve(uint64_t share);

  uint64_t limit() const { return limit_; }
  uint64_t in_use() const;

 private:
  void adjust(uint64_t from, uint64_t to);

  uint64_t limit_;
  mutable std::mutex mutex_;
  uint64_t in_use_ = 0;
};

}  // namespace outbox
