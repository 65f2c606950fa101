#include "order_stream.hpp"

#include <cstdio>
#include <string>

namespace outbox::loadgen {
namespace {

std::string random_uuid(std::mt19937_64& random) {
  const uint64_t high = (random() & 0xffffffffffff0fffULL) | 0x0000000000004000ULL;  // v4
  const uint64_t low = (random() & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;   // variant
  char text[37];
  std::snprintf(text, sizeof(text), "%08x-%04x-%04x-%04x-%012llx",
                static_cast<unsigned>(high >> 32), static_cast<unsigned>((high >> 16) & 0xffff),
                static_cast<unsigned>(high & 0xffff), static_cast<unsigned>(low >> 48),
                static_cast<unsigned long long>(low & 0xffffffffffffULL));
  return text;
}

}  // namespace

OrderStream::OrderStream(int64_t tenant_id, int64_t first_order_id)
    : tenant_id_(tenant_id), first_order_id_(first_order_id), random_(std::random_device{}()) {}

writer::OrderSubmission OrderStream::order(int64_t n) const {
  writer::OrderSubmission order;
  order.tenant_id = tenant_id_;
  order.order_id = first_order_id_ + n;
  order.request_id = "req-" + std::to_string(order.order_id);
  order.event_id = random_uuid(random_);
  order.version = 1;
  order.payload = R"({"order_id": )" + std::to_string(order.order_id) + R"(, "tenant_id": )" +
                  std::to_string(tenant_id_) + R"(, "version": 1, "status": "ACCEPTED"})";
  return order;
}

}  // namespace outbox::loadgen
