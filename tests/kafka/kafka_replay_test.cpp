// outboxctl replay on the real cluster (issue 32): the window's events of one topic again, each
// the first publication's record plus the header outbox_replay, each aggregate's versions in
// order, counted by kcat (replay_scenario.hpp; the mock cluster's run is
// tests/integration/outboxctl_replay_test.cpp).
#include <catch2/catch.hpp>

#include "kafka_faults.hpp"
#include "replay_scenario.hpp"
#include "test_kafka.hpp"

using outbox::test::kafka_relay_config;
using outbox::test::TestDatabase;
using outbox::test::TestKafkaCluster;

TEST_CASE("outboxctl replay sends a window again on the real cluster as first published in order",
          "[replay]") {
  TestKafkaCluster cluster;
  cluster->create_topic("outbox.order", 4);
  cluster->create_topic("outbox.billing", 4);
  TestDatabase db;
  outbox::test::run_replay_scenario(db, cluster.bootstrap(), kafka_relay_config("replay", ""));
}
