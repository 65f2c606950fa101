#pragma once

#include <map>
#include <string>
#include <vector>

#include "harness/broker_process.hpp"
#include "harness/kafka_cluster.hpp"
#include "harness/kafka_tools.hpp"
#include "test_env.hpp"

namespace outbox::test {

// A private outbox-test-broker process (librdkafka's mock cluster over TCP) for one test,
// so broker faults injected by one test never touch another.
class TestBroker {
 public:
  explicit TestBroker(int brokers = 3, int partitions = 8,
                      const std::vector<std::string>& topics = {});
  const std::string& bootstrap() const { return broker_.bootstrap(); }
  // Sends a control command (see mock_commands.hpp); throws unless the reply is "ok".
  void command(const std::string& line) const { broker_.command(line); }
  pid_t pid() const { return broker_.pid(); }

 private:
  TempDir dir_;
  harness::BrokerProcess broker_;
};

// A private real Apache Kafka cluster for one test (3 KRaft nodes, scripts/kafka-cluster.sh),
// each node behind a proxy of the test's (see harness/kafka_cluster.hpp). Its directory (node
// logs) is kept when the test fails, and named in the output.
class TestKafkaCluster {
 public:
  TestKafkaCluster();
  ~TestKafkaCluster();
  harness::KafkaCluster& operator*() { return cluster_; }
  harness::KafkaCluster* operator->() { return &cluster_; }
  const std::string& bootstrap() const { return cluster_.bootstrap(); }

 private:
  TempDir dir_;
  harness::KafkaCluster cluster_;
};

// kcat and a non-member librdkafka client as independent clients (src/tools/harness).
using harness::committed_offsets;
using harness::Isolation;
using harness::KafkaRecord;
using harness::produce_with_kcat;
using harness::read_topic;
using harness::topic_exists;

}  // namespace outbox::test
