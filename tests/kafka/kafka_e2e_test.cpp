// The relay against a real Apache Kafka cluster (3 KRaft nodes, replication factor 3,
// min.insync.replicas 2, scripts/kafka-cluster.sh): results read back with kcat and the mariadb
// CLI, never through our own code.
#include <catch2/catch.hpp>

#include "message_scenarios.hpp"
#include "relay_scenarios.hpp"
#include "test_kafka.hpp"

using outbox::test::TestKafkaCluster;

TEST_CASE("20k events through 3 relays x 2 workers arrive exactly once",
          "[kafka][mysql-matrix][sasl-matrix]") {
  TestKafkaCluster cluster;
  cluster->create_topic("outbox.order", 8);
  outbox::test::run_three_relays_exactly_once(cluster.bootstrap(),
                                              "Kafka " + cluster->version() + " cluster");
}

TEST_CASE("kafka.profile debezium on a real cluster: Debezium's key, id header, topic and value",
          "[kafka][message-shape]") {
  TestKafkaCluster cluster;
  cluster->create_topic("outbox.event.order", 4);
  outbox::test::run_debezium_profile(cluster.bootstrap());
}

TEST_CASE("binary payloads on a real cluster arrive byte for byte", "[kafka][message-shape]") {
  TestKafkaCluster cluster;
  cluster->create_topic("outbox.order", 4);
  outbox::test::run_binary_payloads(cluster.bootstrap(), "LONGBLOB");
}
