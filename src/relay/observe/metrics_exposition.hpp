#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>

#include "observe/backlog_monitor.hpp"
#include "observe/health_board.hpp"
#include "observe/relay_stats.hpp"

namespace outbox {

// Everything /metrics reports, read at scrape time.
struct MetricsSources {
  const RelayStats& stats;
  const BacklogMonitor& backlog;
  const HealthBoard& health;
  std::function<long()> producer_queue;  // messages librdkafka holds (queued + in flight)
  std::function<bool()> ready;
  std::function<bool()> kafka_outage;             // the outage gate holds claims now
  std::function<uint64_t()> kafka_outages_total;  // outages the gate entered so far
  // Paused partitions per topic (paused_partitions.hpp), and how many pauses so far.
  std::function<std::map<std::string, size_t>()> paused_partitions;
  std::function<uint64_t()> partition_pauses_total;
  // relay.max_events_per_second (0: unlimited) and the time workers waited for it so far.
  std::function<uint64_t()> max_events_per_second;
  std::function<double()> rate_limited_seconds;
  // Operators' pauses seen since start, by (kind, name): 1 in force, 0 resumed.
  std::function<std::map<std::pair<std::string, std::string>, int>()> operator_pauses;
};

// The Prometheus text exposition of the relay's metrics (names in docs/operating.md, "Metrics
// and health").
std::string render_metrics(const MetricsSources& sources);

}  // namespace outbox
