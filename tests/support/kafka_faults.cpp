#include "kafka_faults.hpp"

#include <catch2/catch.hpp>

#include <chrono>

#include "poll.hpp"

using namespace std::chrono_literals;

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

ProduceRefusal refuse_produces_until_failures(harness::KafkaCluster& cluster,
                                              const std::string& topic,
                                              const std::function<double()>& publish_failures) {
  ProduceRefusal refusal;
  const int leader = cluster.leader(topic, 0);
  REQUIRE(leader > 0);
  refusal.node = leader % 3 + 1;  // a follower: the writes are refused, not failed over
  const double before = publish_failures();
  const auto refused_at = std::chrono::steady_clock::now();
  cluster.alter_topic(topic, {"min.insync.replicas=3"});
  cluster.kill_node(refusal.node);
  INFO("min.insync.replicas=3 and node " << refusal.node << " killed -9, " << before
                                         << " publish failures before");
  // message.timeout.ms after the first refused write at the latest, plus the ISR shrinking.
  REQUIRE(eventually([&] { return publish_failures() > before; }, 120s, 500ms));
  refusal.failures = publish_failures() - before;
  cluster.alter_topic(topic, {"min.insync.replicas=2"});
  refusal.seconds_refused =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - refused_at).count();
  cluster.start_node(refusal.node);
  cluster.wait_in_sync(topic);
  return refusal;
}

}  // namespace outbox::test
