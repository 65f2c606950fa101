#pragma once

#include <map>
#include <string>
#include <vector>

#include "bench_context.hpp"
#include "ordered_drain.hpp"
#include "real_cluster_runs.hpp"
#include "relay_runs.hpp"
#include "stats.hpp"
#include "steady_latency.hpp"

namespace outbox::bench {

struct BacklogPoint {
  std::string label;
  Figure claim_ms;
};

// Everything one run of the suite measured.
struct SuiteResults {
  std::map<int, Figure> db_limit;      // batch -> events/s
  std::map<int, Figure> broker_limit;  // batch -> events/s
  Figure drain_rate;
  Figure drain_relay_cpu;
  Figure drain_db_cpu;
  Figure drain_peak_rss;
  long drain_duplicates = 0;
  OrderedDrainResults ordered;      // per-aggregate order vs none vs L_db, two profiles
  RealClusterResults real_cluster;  // L_k(500) and the drain again, on a real cluster
  std::vector<BacklogPoint> claim_cost;
  std::string explain;
  DrainRun memory_drain;  // the large drain
  std::vector<LatencyPhase> latency;
  std::map<std::string, double> idle;
  std::map<int, Figure> scale_rate;  // relays -> events/s
  std::map<int, long> scale_duplicates;
  double seconds = 0;
};

// Runs every scenario in an order that reuses loaded data, printing progress on stderr.
SuiteResults run_suite(BenchContext& context);

}  // namespace outbox::bench
