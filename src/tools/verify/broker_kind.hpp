#pragma once

#include <optional>
#include <string>

namespace outbox::verify {

// Which Kafka the chain runs against: librdkafka's mock cluster (outbox-test-broker: starts in
// milliseconds, injects per-request errors; the default) or a real Apache Kafka cluster
// (scripts/kafka-cluster.sh: 3 KRaft nodes, what users run; a node can be killed -9).
enum class BrokerKind { kMock, kReal };

// "mock", "real": the --kafka values and what the reports say.
const char* broker_kind_name(BrokerKind kind);
std::optional<BrokerKind> broker_kind_named(const std::string& name);

}  // namespace outbox::verify
