// The operator's pause on the real cluster (issue 32): outboxctl pause holds outbox.billing in
// two relays while outbox.order flows, a kill -9 and a new relay keep the pause, outboxctl
// resume releases every held event; kcat reads each billing aggregate's versions in order
// (operator_pause_scenario.hpp; the mock cluster's run is tests/integration/
// operator_pause_test.cpp).
#include <catch2/catch.hpp>

#include "kafka_faults.hpp"
#include "operator_pause_scenario.hpp"
#include "test_kafka.hpp"

using outbox::test::kafka_relay_config;
using outbox::test::RelayTestConfig;
using outbox::test::TestDatabase;
using outbox::test::TestKafkaCluster;

TEST_CASE(
    "an operator's pause holds a topic in two relays through a kill -9 and resume releases "
    "it in order",
    "[operator-pause]") {
  TestKafkaCluster cluster;
  cluster->create_topic("outbox.order", 4);
  cluster->create_topic("outbox.billing", 4);
  TestDatabase db;
  outbox::test::run_operator_pause_scenario(db, cluster.bootstrap(), [](const std::string& name) {
    return kafka_relay_config("pause-" + name, "");
  });
}
