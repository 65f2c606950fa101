#include "test_kafka.hpp"

#include <exception>
#include <iostream>

namespace outbox::test {

TestBroker::TestBroker(int brokers, int partitions, const std::vector<std::string>& topics)
    : broker_(test_broker_binary(), dir_.path(), brokers, partitions, topics) {}

TestKafkaCluster::TestKafkaCluster()
    : dir_("outbox-kafka"), cluster_(source_dir() + "/scripts/kafka-cluster.sh", dir_.path()) {}

TestKafkaCluster::~TestKafkaCluster() {
  // Destroyed while a failed REQUIRE unwinds the test: keep the nodes
  // logs for whoever reads the failure.
  if (std::uncaught_exceptions() > 0) {
    dir_.keep();
    std::cerr << "kafka cluster logs kept in " << dir_.path() << "\n";
  }
}

}  // namespace outbox::test
