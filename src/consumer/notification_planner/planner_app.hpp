#pragma once

#include "planner_config.hpp"

namespace outbox::planner {

// Runs the consumer until SIGTERM/SIGINT: finishes the message in hand, commits acknowledged
// offsets, leaves the group, exits 0. A second signal exits at once (1). 78 when
// consumed_event lacks uq_consumed_event_identity, 1 on a fatal Kafka error. Call
// block_shutdown_signals() first.
int run_planner(const PlannerConfig& config);

}  // namespace outbox::planner
