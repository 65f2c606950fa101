#pragma once

#include <string>

namespace outbox::test {

// Scenarios run the same way against librdkafka's mock cluster and against the real Kafka
// cluster (tests/kafka), so each broker is held to the same assertions.

// 20k events (one per aggregate) through 3 relays x 2 workers on a fresh database, topic
// outbox.order (created by the caller): every row PUBLISHED by a claim of one of the three,
// each event exactly once on the topic with its key, value and headers (read with kcat).
// Prints a [figures] line naming `broker_name`.
void run_three_relays_exactly_once(const std::string& bootstrap, const std::string& broker_name);

}  // namespace outbox::test
