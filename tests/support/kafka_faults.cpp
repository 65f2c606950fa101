#include "kafka_faults.hpp"

#include <catch2/catch.hpp>

#include <chrono>

#include "poll.hpp"

namespace outbox::test {

RelayTestConfig kafka_relay_config(const std::string& instance_id, const std::string& relay_yaml) {
  RelayTestConfig settings;
  settings.instance_id = instance_id;
  settings.extra_kafka_properties = "    statistics.interval.ms: 1000\n";
  settings.extra_relay_settings = relay_yaml;
  return settings;
}

LeaderOutage kill_and_restart_leader(harness::KafkaCluster& cluster, const std::string& topic,
                                     const std::function<long long()>& published,
                                     long long progress) {
  LeaderOutage outage;
  outage.node = cluster.leader(topic, 0);
  REQUIRE(outage.node > 0);
  outage.published_at_kill = published();
  const auto killed_at = std::chrono::steady_clock::now();
  cluster.kill_node(outage.node);
  INFO("kill -9 of node " << outage.node << " at " << outage.published_at_kill << " published");
  REQUIRE(eventually([&] { return published() >= outage.published_at_kill + progress; }));
  outage.successor = cluster.leader(topic, 0);
  outage.published_at_restart = published();
  cluster.start_node(outage.node);
  outage.seconds_down =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - killed_at).count();
  cluster.wait_in_sync(topic);
  return outage;
}

}  // namespace outbox::test
