#include "broker_kind.hpp"

namespace outbox::verify {

const char* broker_kind_name(BrokerKind kind) {
  return kind == BrokerKind::kReal ? "real" : "mock";
}

std::optional<BrokerKind> broker_kind_named(const std::string& name) {
  if (name == "mock") return BrokerKind::kMock;
  if (name == "real") return BrokerKind::kReal;
  return std::nullopt;
}

}  // namespace outbox::verify
