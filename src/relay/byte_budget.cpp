#include "byte_budget.hpp"

#include <algorithm>
#include <utility>

namespace outbox {

ByteBudget::Hold::Hold(Hold&& other) noexcept
    : budget_(std::exchange(other.budget_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

ByteBudget::Hold& ByteBudget::Hold::operator=(Hold&& other) noexcept {
  if (this != &other) {
    give_back();
    budget_ = std::exchange(other.budget_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

void ByteBudget::Hold::resize(uint64_t used) {
  if (budget_ != nullptr) budget_->adjust(bytes_, used);
  bytes_ = used;
}

void ByteBudget::Hold::give_back() {
  if (budget_ != nullptr && bytes_ != 0) budget_->adjust(bytes_, 0);
  bytes_ = 0;
}

ByteBudget::Allowance ByteBudget::reserve(uint64_t share) {
  std::lock_guard lock(mutex_);
  const bool alone = in_use_ == 0;
  const uint64_t bytes = std::min(share, limit_ - std::min(limit_, in_use_));
  in_use_ += bytes;
  return Allowance{Hold(this, bytes), alone};
}

void ByteBudget::adjust(uint64_t from, uint64_t to) {
  std::lock_guard lock(mutex_);
  in_use_ = in_use_ - std::min(in_use_, from) + to;
}

uint64_t ByteBudget::in_use() const {
  std::lock_guard lock(mutex_);
  return in_use_;
}

}  // namespace outbox
