#pragma once

#include <functional>
#include <string>

#include "harness/kafka_cluster.hpp"
#include "relay_process.hpp"

namespace outbox::test {

// A relay config for the real cluster: librdkafka's statistics every second (instead of the
// relay's 5 s default) so the request counters of /metrics are fresh when a test reads them,
// and `relay_yaml` (lines under relay:) for its ordering, attempts and backoffs.
RelayTestConfig kafka_relay_config(const std::string& instance_id, const std::string& relay_yaml);

// One kill -9 of a partition leader and its way back.
struct LeaderOutage {
  int node = -1;                       // the node that led partition 0 and was killed
  int successor = -1;                  // the node that led it while `node` was down
  long long published_at_kill = 0;     // published() just before the kill
  long long published_at_restart = 0;  // ... when the node was started again
  double seconds_down = 0;
};

// kill -9 of the node leading partition 0 of `topic`; waits until published() grew by
// `progress` while it is down (the other two took over), starts it again and waits until it
// is back in every partition's ISR, so that the next kill still leaves two replicas in sync.
LeaderOutage kill_and_restart_leader(harness::KafkaCluster& cluster, const std::string& topic,
                                     const std::function<long long()>& published,
                                     long long progress);

}  // namespace outbox::test
