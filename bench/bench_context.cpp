#include "bench_context.hpp"

namespace outbox::bench {

BenchSizes BenchSizes::smoke_run() {
  BenchSizes sizes;
  sizes.runs = 1;
  sizes.drain_events = 2'000;
  sizes.memory_events = 5'000;
  sizes.retained_published_large = 20'000;
  sizes.scale_events = 2'000;
  sizes.catchup_events = 2'000;
  sizes.baseline_seconds = 0.5;
  sizes.latency_window_seconds = 1;
  sizes.latency_windows = 1;
  sizes.idle_seconds = 1;
  sizes.claim_samples = 10;
  sizes.smoke = true;
  return sizes;
}

std::string BenchContext::next_topic(const std::string& label) {
  return "bench." + label + "." + std::to_string(++topic_counter);
}

void BenchContext::create_topic(const std::string& topic) const {
  if (cluster != nullptr) {
    cluster->create_topic(topic, 8);
  } else {
    broker->command("topic " + topic + " 8 3");
  }
}

std::vector<pid_t> BenchContext::broker_pids() const {
  if (cluster != nullptr) return cluster->node_pids();
  if (broker != nullptr) return {broker->pid()};
  return {};
}

}  // namespace outbox::bench
