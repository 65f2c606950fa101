#pragma once

#include <functional>
#include <string>

#include "backlog_monitor.hpp"
#include "health_board.hpp"
#include "relay_stats.hpp"

namespace outbox {

// Everything /metrics reports, read at scrape time.
struct MetricsSources {
  const RelayStats& stats;
  const BacklogMonitor& backlog;
  const HealthBoard& health;
  std::function<long()> producer_queue;  // messages librdkafka holds (queued + in flight)
  std::function<bool()> ready;
};

// The Prometheus text exposition of the relay's metrics (names in docs/operating.md, "Metrics
// and health").
std::string render_metrics(const MetricsSources& sources);

}  // namespace outbox
