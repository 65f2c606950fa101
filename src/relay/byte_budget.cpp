#include "byte_budget.hpp"

#include <algorithm>

namespace outbox {

ByteBudget::Allowance ByteBudget::reserve(uint64_t share) {
  std::lock_guard lock(mutex_);
  Allowance allowance;
  allowance.alone = in_use_ == 0;
  allowance.bytes = std::min(share, limit_ - std::min(limit_, in_use_));
  in_use_ += allowance.bytes;
  return allowance;
}

void ByteBudget::keep(uint64_t reserved, uint64_t used) {
  std::lock_guard lock(mutex_);
  in_use_ = in_use_ - reserved + used;
}

void ByteBudget::release(uint64_t used) {
  std::lock_guard lock(mutex_);
  in_use_ -= std::min(in_use_, used);
}

uint64_t ByteBudget::in_use() const {
  std::lock_guard lock(mutex_);
  return in_use_;
}

}  // namespace outbox
