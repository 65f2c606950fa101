#include "chain_broker.hpp"

#include <chrono>
#include <stdexcept>

#include "versions.hpp"

namespace outbox::verify {
namespace {

std::string node_or_all(int node) {
  return node == 0 ? std::string("all") : std::to_string(node);
}

}  // namespace

ChainBroker::ChainBroker(BrokerKind kind, const Programs& programs, const std::string& work_dir,
                         int mock_brokers, int partitions, const std::vector<std::string>& topics)
    : kind_(kind), test_broker_binary_(programs.test_broker) {
  if (kind_ == BrokerKind::kMock) {
    nodes_ = mock_brokers;
    mock_ = std::make_unique<harness::BrokerProcess>(programs.test_broker, work_dir, mock_brokers,
                                                     partitions, topics);
    return;
  }
  nodes_ = harness::KafkaCluster::kNodes;
  cluster_ =
      std::make_unique<harness::KafkaCluster>(programs.kafka_cluster_script, work_dir + "/kafka");
  // Automatic topic creation is off on the real cluster: every topic is made here.
  for (const std::string& topic : topics)
    cluster_->create_topic(topic, partitions);
}

ChainBroker::~ChainBroker() = default;

const std::string& ChainBroker::bootstrap() const {
  return mock_ ? mock_->bootstrap() : cluster_->bootstrap();
}

std::string ChainBroker::version() const {
  if (mock_) return first_output_line({test_broker_binary_, "--version"});
  return "Apache Kafka " + cluster_->version() + ", " + std::to_string(nodes_) +
         " KRaft nodes (scripts/kafka-cluster.sh: replication factor 3, min.insync.replicas 2), "
         "on " +
         first_output_line({"java", "-version"});
}

void ChainBroker::delay_replies(int ms) {
  if (mock_) {
    mock_->command("rtt all " + std::to_string(ms));
    return;
  }
  for (int node = 1; node <= nodes_; ++node)
    cluster_->proxy(node).delay_replies(std::chrono::milliseconds(ms));
}

void ChainBroker::take_off_network(int node) {
  if (mock_) {
    mock_->command("down " + node_or_all(node));
    return;
  }
  for (int n = 1; n <= nodes_; ++n) {
    if (node == 0 || node == n) cluster_->proxy(n).cut();
  }
}

void ChainBroker::put_on_network(int node) {
  if (mock_) {
    mock_->command("up " + node_or_all(node));
    return;
  }
  for (int n = 1; n <= nodes_; ++n) {
    if (node == 0 || node == n) cluster_->proxy(n).heal();
  }
}

void ChainBroker::inject_request_errors(const std::string& api, const std::string& error,
                                        int count) {
  std::string line = "errors " + api;
  for (int i = 0; i < count; ++i)
    line += " " + error;
  mock("per-request errors").command(line);
}

void ChainBroker::clear_request_errors(const std::string& api) {
  mock("per-request errors").command("clear " + api);
}

void ChainBroker::kill_node(int node) {
  cluster("kill -9 of a node").kill_node(node);
}

void ChainBroker::start_node(int node) {
  cluster("a node's restart").start_node(node);
}

harness::BrokerProcess& ChainBroker::mock(const char* fault) const {
  if (!mock_) throw std::logic_error(std::string(fault) + ": only the mock cluster has them");
  return *mock_;
}

harness::KafkaCluster& ChainBroker::cluster(const char* fault) const {
  if (!cluster_) throw std::logic_error(std::string(fault) + ": only on the real cluster");
  return *cluster_;
}

}  // namespace outbox::verify
