#pragma once

#include <memory>
#include <string>
#include <vector>

#include "broker_kind.hpp"
#include "harness/broker_process.hpp"
#include "harness/kafka_cluster.hpp"
#include "programs.hpp"

namespace outbox::verify {

// The Kafka the chain publishes to and consumes from, with the topics created, and the faults
// it can take. The mock cluster and the real one share what both can do (answers delayed, a
// node off the clients' network); the rest belongs to one of them and throws on the other:
// per-request errors are the mock's, kill -9 of a node the real cluster's.
class ChainBroker {
 public:
  // Starts it under `work_dir` (the real cluster's nodes in <work_dir>/kafka) with `topics`,
  // `partitions` each. `mock_brokers`: the mock's broker count (the real cluster has
  // harness::KafkaCluster::kNodes). Throws std::runtime_error when it does not come up.
  ChainBroker(BrokerKind kind, const Programs& programs, const std::string& work_dir,
              int mock_brokers, int partitions, const std::vector<std::string>& topics);
  ~ChainBroker();
  ChainBroker(const ChainBroker&) = delete;
  ChainBroker& operator=(const ChainBroker&) = delete;

  BrokerKind kind() const { return kind_; }
  const std::string& bootstrap() const;
  int nodes() const { return nodes_; }
  // What the report names as the broker: the mock's librdkafka, or Kafka's and Java's versions.
  std::string version() const;

  // Every answer to every client held back `ms` (0: no longer): the mock's rtt; on the real
  // cluster the proxy in front of each node holds the answers (requests run at once).
  void delay_replies(int ms);
  // Node 1..nodes() (0: every node) off the clients' network, and back: the mock's down/up, the
  // real cluster's proxies cut and healed (replication between the nodes goes on).
  void take_off_network(int node);
  void put_on_network(int node);

  // Mock only: the next `count` requests of `api` (Produce, OffsetCommit, Fetch) fail with
  // `error`; and the end of what is left of that.
  void inject_request_errors(const std::string& api, const std::string& error, int count);
  void clear_request_errors(const std::string& api);

  // Real cluster only: kill -9 of node 1..nodes() (its data stays), and its restart, which
  // returns once the node serves clients again.
  void kill_node(int node);
  void start_node(int node);

 private:
  harness::BrokerProcess& mock(const char* fault) const;
  harness::KafkaCluster& cluster(const char* fault) const;

  BrokerKind kind_;
  int nodes_ = 0;
  std::string test_broker_binary_;
  std::unique_ptr<harness::BrokerProcess> mock_;
  std::unique_ptr<harness::KafkaCluster> cluster_;
};

}  // namespace outbox::verify
