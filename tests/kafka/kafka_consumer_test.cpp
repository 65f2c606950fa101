// The consumer library against a real Apache Kafka cluster: notification-planner processes in
// one consumer group on a real group coordinator, one of them killed -9 mid-run. Results read
// with kcat, the mariadb CLI and a client outside the group, never through our own code.
#include <catch2/catch.hpp>

#include "planner_process.hpp"
#include "planner_scenarios.hpp"
#include "test_kafka.hpp"

using outbox::test::TestKafkaCluster;

TEST_CASE("two planners in one group, one killed -9 mid-run and restarted: one job per event",
          "[kafka][planner]") {
  TestKafkaCluster cluster;
  cluster->create_topic(outbox::test::kOrderTopic, 8);
  cluster->create_topic(outbox::test::kOrderDeadLetterTopic, 1);
  outbox::test::PlannerGroupScenario scenario;
  scenario.events = 20000;
  scenario.kill_and_restart_one = true;
  outbox::test::run_two_planners_in_one_group(cluster.bootstrap(),
                                              "Kafka " + cluster->version() + " cluster", scenario);
}
