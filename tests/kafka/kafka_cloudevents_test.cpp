// kafka.profile: cloudevents on the real cluster (issue 32): the CloudEvents Python SDK's Kafka
// binding decodes every message kcat reads back as the outbox row it came from, and the
// consumer library (notification-planner) applies each event once, identified by ce_id, a
// redelivered copy recognised as a duplicate (cloudevents_check.hpp).
#include <catch2/catch.hpp>

#include "cloudevents_check.hpp"
#include "kafka_faults.hpp"
#include "planner_process.hpp"
#include "test_kafka.hpp"

using outbox::test::TestKafkaCluster;

TEST_CASE(
    "kafka.profile cloudevents: the CloudEvents SDK decodes every message and the consumer "
    "library applies each once",
    "[cloudevents]") {
  TestKafkaCluster cluster;
  cluster->create_topic(outbox::test::kOrderTopic, 4);
  cluster->create_topic(outbox::test::kOrderDeadLetterTopic, 1);
  outbox::test::run_cloudevents_profile(cluster.bootstrap(),
                                        outbox::test::kafka_relay_config("cloudevents", ""), true);
}
