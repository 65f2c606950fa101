#include "real_cluster_runs.hpp"

#include "baselines.hpp"
#include "relay_runs.hpp"
#include "test_env.hpp"

namespace outbox::bench {
namespace {

// Points a context at a real cluster for as long as it lives.
class OnCluster {
 public:
  OnCluster(BenchContext& context, const harness::KafkaCluster& cluster)
      : context_(context), broker_(context.broker), bootstrap_(context.bootstrap) {
    context_.broker = nullptr;
    context_.cluster = &cluster;
    context_.bootstrap = cluster.bootstrap();
  }
  ~OnCluster() {
    context_.broker = broker_;
    context_.cluster = nullptr;
    context_.bootstrap = bootstrap_;
  }
  OnCluster(const OnCluster&) = delete;
  OnCluster& operator=(const OnCluster&) = delete;

 private:
  BenchContext& context_;
  test::TestBroker* broker_;
  std::string bootstrap_;
};

}  // namespace

void on_real_cluster(BenchContext& context, const std::function<void()>& body) {
  test::TempDir dir("outbox-bench-kafka");
  // Direct wiring: a proxy in front of each node would add its own copy to every figure.
  const harness::KafkaCluster cluster(test::source_dir() + "/scripts/kafka-cluster.sh", dir.path(),
                                      harness::KafkaCluster::Wiring::kDirect);
  const OnCluster on_cluster(context, cluster);
  body();
}

RealClusterResults measure_on_real_cluster(BenchContext& context, const RealClusterPlan& plan) {
  RealClusterResults results;
  on_real_cluster(context, [&] {
    results.version = context.cluster->version();
    results.broker_limit = measure_broker_limit(context, 500, plan.workers);
    for (int run = 0; plan.drains && run < context.sizes.runs; ++run) {
      const DrainRun drained = drain(context, context.sizes.drain_events, 1, true);
      results.drain_rate.runs.push_back(drained.rate);
      results.drain_relay_cpu.runs.push_back(drained.relay_cpu_percent);
      results.drain_duplicates += drained.duplicates;
    }
    if (plan.ordered_drain) results.ordered = measure_ordered_drain(context);
  });
  return results;
}

}  // namespace outbox::bench
