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

// A stretch of produce errors from the broker itself: the topic asks for three replicas in
// sync (min.insync.replicas=3) while one follower is killed -9, so its leader stops taking
// acks=all writes (the produce requests wait for the dead follower, then, once it left the
// ISR, are refused NOT_ENOUGH_REPLICAS); librdkafka retries them until message.timeout.ms
// and the relays get failed reports. Ends once `publish_failures()` (the relays'
// outbox_relay_publish_failures_total) grew: min.insync.replicas back to 2, the node started
// and in sync again.
struct ProduceRefusal {
  int node = -1;        // the follower that was down
  double failures = 0;  // publish failures the relays reported meanwhile
  double seconds_refused = 0;
};
ProduceRefusal refuse_produces_until_failures(harness::KafkaCluster& cluster,
                                              const std::string& topic,
                                              const std::function<double()>& publish_failures);

}  // namespace outbox::test
