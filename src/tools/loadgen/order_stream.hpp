#pragma once

#include <cstdint>
#include <random>

#include "order_submission.hpp"

namespace outbox::loadgen {

// The orders the load generator submits: order ids first_order_id, first_order_id + 1, ...;
// request id "req-<order id>"; a random UUIDv4 event id; a payload with the facts a consumer
// needs (order_id, tenant_id, version, status). Each order is built once, before its first
// attempt, and its ids never change afterwards.
class OrderStream {
 public:
  OrderStream(int64_t tenant_id, int64_t first_order_id);

  // The n-th order (0-based), with a fresh event id.
  writer::OrderSubmission order(int64_t n) const;

 private:
  int64_t tenant_id_;
  int64_t first_order_id_;
  mutable std::mt19937_64 random_;
};

}  // namespace outbox::loadgen
