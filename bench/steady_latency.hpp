#pragma once

#include <functional>
#include <string>

#include "bench_context.hpp"
#include "stats.hpp"

namespace outbox::bench {

// One load level: writers commit orders (order row + outbox event, one transaction each) at
// `rate` events/s while a relay runs; latency = published_at - created_at of each event (both
// by the database clock; published_at is written just after the broker's ack, so it bounds
// the ack time from above).
struct LatencyPhase {
  double target_rate = 0;
  double achieved_rate = 0;
  Figure p50_ms;  // one value per window
  Figure p99_ms;
  Figure max_ms;
  long max_backlog = 0;    // PENDING rows, sampled every 200 ms
  long final_backlog = 0;  // at the end of the last window
};

// Writers commit orders through the writer library (order row + outbox event, one
// transaction each, 4 writers like a service's request threads) at `rate` events/s: a warm-up
// of up to 2 s, then `latency_windows` windows of `latency_window_seconds`. Event ids start with
// latency_event_prefix(phase, window), window -1 for the warm-up. `sample` runs on the calling
// thread every 200 ms while they write. Returns the events written per second.
double write_orders(BenchContext& context, double rate, int phase,
                    const std::function<void()>& sample);

// "lat-<phase>-<window>-": the event ids one window of one phase wrote.
std::string latency_event_prefix(int phase, int window);

// Runs `latency_windows` windows of `latency_window_seconds` at `rate` (the relay must be
// running). `phase` names the events of this phase.
LatencyPhase measure_latency(BenchContext& context, double rate, int phase);

}  // namespace outbox::bench
