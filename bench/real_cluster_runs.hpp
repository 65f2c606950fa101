#pragma once

#include <functional>
#include <optional>
#include <string>

#include "bench_context.hpp"
#include "ordered_drain.hpp"
#include "stats.hpp"

namespace outbox::bench {

// The publish baseline and the relay's drain on a real Apache Kafka cluster (3 KRaft nodes on
// loopback, replication factor 3, min.insync.replicas 2), measured in the same run as the mock
// cluster's figures so the report can set them side by side: the mock answers in microseconds
// and replicates nothing, so it flatters the broker's side of every figure.
struct RealClusterResults {
  std::string version;  // Apache Kafka's, as the cluster script reports it
  Figure broker_limit;  // L_k(500) on the real cluster, events/s
  Figure drain_rate;    // R on the real cluster, events/s
  Figure drain_relay_cpu;
  long drain_duplicates = 0;
  // The ordered-drain section again on this cluster, when asked for: issue 13's figures are
  // due on both brokers.
  std::optional<OrderedDrainResults> ordered;
};

// What to measure on the cluster besides L_k(500).
struct RealClusterPlan {
  int workers = 2;
  bool drains = true;         // context.sizes.runs drains of context.sizes.drain_events
  bool ordered_drain = true;  // measure_ordered_drain() on the cluster
};

// Starts a cluster of its own (scripts/kafka-cluster.sh, cached broker under .local/), points
// `context` at it for the measurements and back at the test broker afterwards, and kills it.
RealClusterResults measure_on_real_cluster(BenchContext& context, const RealClusterPlan& plan);

// Runs `body` with `context` pointed at a real cluster of its own (as above), for measurements
// of the caller's choosing (outbox-bench sweep).
void on_real_cluster(BenchContext& context, const std::function<void()>& body);

}  // namespace outbox::bench
