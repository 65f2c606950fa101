#pragma once

#include <algorithm>
#include <random>

#include "config/duration.hpp"

namespace outbox {

// Capped exponential backoff with jitter: next() doubles up to `max`, then picks a random
// point in the upper half so that relays that failed together do not retry together.
class Backoff {
 public:
  Backoff(Micros initial, Micros max) : initial_(initial), max_(max), current_(initial) {}

  Micros next() {
    const Micros ceiling = current_;
    current_ = std::min(max_, current_ * 2);
    std::uniform_int_distribution<int64_t> pick(ceiling.count() / 2, ceiling.count());
    return Micros(pick(random_));
  }
  void reset() { current_ = initial_; }

 private:
  Micros initial_;
  Micros max_;
  Micros current_;
  std::minstd_rand random_{std::random_device{}()};
};

}  // namespace outbox
