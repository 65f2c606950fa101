#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "harness/tcp_proxy.hpp"

namespace outbox::harness {

// A real Apache Kafka cluster (scripts/kafka-cluster.sh): 3 KRaft nodes, each broker and
// controller, on loopback under `dir`, replication factor 3, min.insync.replicas 2, unclean
// leader election and topic auto-creation off. Every node advertises its client listener at
// a TcpProxy of ours, so a test can cut the wire between every client and one broker while
// replication between the brokers goes on. The destructor kills every node.
class KafkaCluster {
 public:
  static constexpr int kNodes = 3;
  // Direct: no proxies, clients reach the brokers themselves (the benchmarks: a proxy would
  // add its own copy and CPU to every figure).
  enum class Wiring { kProxied, kDirect };

  // `script`: scripts/kafka-cluster.sh of the source tree. Throws with the script's output when
  // the cluster does not come up; never falls back to anything else.
  KafkaCluster(std::string script, std::string dir, Wiring wiring = Wiring::kProxied);
  ~KafkaCluster();
  KafkaCluster(const KafkaCluster&) = delete;
  KafkaCluster& operator=(const KafkaCluster&) = delete;

  // host:port of every node's client listener, through the proxies.
  const std::string& bootstrap() const { return bootstrap_; }
  // host:port of every node's inter-broker listener, which no proxy touches: for checks that
  // must see the cluster while a proxy is cut.
  const std::string& internal_bootstrap() const { return internal_bootstrap_; }
  const std::string& dir() const { return dir_; }
  std::string version() const;

  // Replication factor 3; returns once every partition has a leader. `configs`: "key=value".
  void create_topic(const std::string& topic, int partitions,
                    const std::vector<std::string>& configs = {}) const;
  // The same, with node 1..3 first among every partition's replicas: it leads them all, so
  // one kill or one cut wire hits every partition a test writes.
  void create_topic_led_by(const std::string& topic, int partitions, int node) const;
  // Sets topic configs ("key=value"), e.g. min.insync.replicas=3 to make one node's absence
  // a produce error (NOT_ENOUGH_REPLICAS for acks=all).
  void alter_topic(const std::string& topic, const std::vector<std::string>& configs) const;
  // The node leading the partition now, asked of the cluster (-1: none).
  int leader(const std::string& topic, int partition) const;
  // kill -9 of node 1..3 (its data stays), and its restart: returns once it serves clients.
  void kill_node(int node) const;
  void start_node(int node) const;
  // Starts several at once (two of three down: neither can serve alone without the other).
  void start_nodes(const std::vector<int>& nodes) const;
  // Waits until every partition of topic has a leader again (after a kill or restart).
  void wait_leaders(const std::string& topic) const;
  // Waits until every replica of every partition of topic is in sync (a restarted node has
  // caught up), so that the next kill leaves min.insync.replicas in sync.
  void wait_in_sync(const std::string& topic) const;
  // The proxy in front of node 1..3's client listener (Wiring::kProxied only).
  TcpProxy& proxy(int node) { return *proxies_.at(static_cast<size_t>(node - 1)); }
  // The node's log (server.log).
  std::string node_log(int node) const;
  // The JVM of every node that runs (its pid file), for the benchmarks' CPU shares.
  std::vector<pid_t> node_pids() const;

 private:
  std::string run(const std::vector<std::string>& args) const;

  std::string script_;
  std::string dir_;
  std::vector<std::unique_ptr<TcpProxy>> proxies_;
  std::string bootstrap_;
  std::string internal_bootstrap_;
};

}  // namespace outbox::harness
