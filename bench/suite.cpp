#include "suite.hpp"

#include <chrono>
#include <iostream>

#include "baselines.hpp"
#include "claim_latency.hpp"
#include "dataset.hpp"
#include "idle_cost.hpp"

namespace outbox::bench {
namespace {

// The relay's default worker count: the baselines use as many connections/threads.
constexpr int kDefaultWorkers = 2;

// Progress on stderr, each line with the seconds since the suite began (the suite has a time
// budget: this shows where it goes).
void say(const std::string& text) {
  static const auto started = std::chrono::steady_clock::now();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::cerr << "==> [" << static_cast<int>(seconds) << " s] " << text << std::endl;
}

}  // namespace

SuiteResults run_suite(BenchContext& context) {
  const auto started = std::chrono::steady_clock::now();
  SuiteResults results;
  const BenchSizes& sizes = context.sizes;

  for (int batch : {1, 100, 500}) {
    say("L_db(" + std::to_string(batch) + ")");
    results.db_limit[batch] = measure_db_limit(context, batch, kDefaultWorkers);
    say("L_k(" + std::to_string(batch) + ")");
    results.broker_limit[batch] = measure_broker_limit(context, batch, kDefaultWorkers);
  }

  for (int run = 0; run < sizes.runs; ++run) {
    say("drain " + std::to_string(sizes.drain_events) + ", run " + std::to_string(run + 1));
    const DrainRun drained = drain(context, sizes.drain_events, 1, true);
    results.drain_rate.runs.push_back(drained.rate);
    results.drain_relay_cpu.runs.push_back(drained.relay_cpu_percent);
    results.drain_db_cpu.runs.push_back(drained.db_cpu_percent);
    results.drain_peak_rss.runs.push_back(drained.peak_rss_mib);
    results.drain_duplicates += drained.duplicates;
  }

  say("ordered drain: per_aggregate vs none on one and on several versions per aggregate, "
      "durable and tuned (a smoke run: durable)");
  results.ordered = measure_ordered_drain(context);

  if (sizes.real_cluster) {
    say("the same on a real Kafka cluster: L_k(500), " + std::to_string(sizes.runs) +
        " drains and the ordered drain");
    results.real_cluster = measure_on_real_cluster(context, {.workers = kDefaultWorkers});
  }

  say("claim cost vs backlog");
  clear_outbox(context);
  long pending = 0;
  for (long target : {10'000L, 100'000L, static_cast<long>(sizes.memory_events)}) {
    if (sizes.smoke) target /= 10;
    load_events(context, "c" + std::to_string(target), target - pending, "PENDING");
    pending = target;
    results.claim_cost.push_back(
        {std::to_string(target) + " PENDING", measure_claim_latency(context)});
  }
  say("large drain (" + std::to_string(pending) + " events): rate and peak memory");
  results.memory_drain = drain_loaded(context, 1, false);
  const long retained = pending;
  load_events(context, "r10k", 10'000, "PENDING");
  results.claim_cost.push_back({"10000 PENDING + " + std::to_string(retained) + " PUBLISHED",
                                measure_claim_latency(context)});
  say("loading " + std::to_string(sizes.retained_published_large) + " PUBLISHED rows");
  load_events(context, "hist", sizes.retained_published_large - retained, "PUBLISHED");
  results.claim_cost.push_back(
      {"10000 PENDING + " + std::to_string(sizes.retained_published_large) + " PUBLISHED",
       measure_claim_latency(context)});
  results.explain = explain_claim_queries(context);

  say("steady-state latency");
  clear_outbox(context);
  context.db.exec("TRUNCATE TABLE orders");
  {
    RelayUnderTest relay(context, context.next_topic("latency"), "bench-latency");
    const double r = results.drain_rate.median();
    int phase = 0;
    for (double rate : {1000.0, 0.25 * r, 0.5 * r, 0.8 * r}) {
      if (sizes.smoke) rate = std::min(rate, 200.0);
      say("  " + format_number(rate) + " events/s");
      results.latency.push_back(measure_latency(context, rate, phase++));
    }
    say("idle cost");
    results.idle = measure_idle_statements(context, sizes.idle_seconds);
    relay.stop();
  }

  for (int relays : {1, 2, 3}) {
    for (int run = 0; run < sizes.runs; ++run) {
      say("scale-out: " + std::to_string(relays) + " relays, run " + std::to_string(run + 1));
      const DrainRun drained = drain(context, sizes.scale_events, relays, true);
      results.scale_rate[relays].runs.push_back(drained.rate);
      results.scale_duplicates[relays] += drained.duplicates;
    }
  }
  say("done");
  results.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return results;
}

}  // namespace outbox::bench
