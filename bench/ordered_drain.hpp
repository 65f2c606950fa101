#pragma once

#include <string>
#include <vector>

#include "bench_context.hpp"
#include "stats.hpp"

namespace outbox::bench {

// One database profile of the ordered-drain comparison (issue 13's table): the same backlog
// drained with and without per-aggregate order, beside the claim + mark loop alone.
struct OrderedDrainProfile {
  std::string name;      // "tuned", "durable"
  std::string settings;  // as the server read them back
  Figure db_limit;       // L_db(500): claim + mark, 2 connections, no broker
  // The same loop with a claim that locks rows and marks them in one transaction, each row
  // written once (protocol_limits.hpp): the ceiling of a relay built that way, which none is.
  Figure locked_limit;
  Figure single_ordered;    // one event per aggregate, ordering per_aggregate (the default)
  Figure single_unordered;  // the same rows, ordering none
  Figure multi_unordered;   // `aggregates` aggregates x versions, ordering none
  Figure multi_ordered;     // the same rows, ordering per_aggregate
  // The same rows, per_aggregate with pipelined_chains: false (each version waits for its
  // predecessor's acknowledgement): the mode before pipelined chains, measured in the same run.
  Figure multi_waves;
  Figure single_transactional;  // one event per aggregate, ordering transactional
  Figure multi_transactional;   // the multi-version rows, ordering transactional
  long duplicates = 0;          // deliveries - distinct event ids, every drain of the profile
  // CPU during the several-versions `none` drains, % of one core (200: both cores): the
  // relay, MariaDB, the broker's processes, and the whole machine. L_db(500) has no broker;
  // here the broker takes its share of the same two cores.
  Figure none_relay_cpu, none_db_cpu, none_broker_cpu, none_machine_cpu;
};

struct OrderedDrainResults {
  std::string broker;  // what the relays published to: "the test broker", "a real cluster"
  long events = 0;
  long aggregates = 0;  // of the multi-version backlog
  std::vector<OrderedDrainProfile> profiles;
};

// Runs both profiles (durable: innodb_flush_log_at_trx_commit=1, sync_binlog=1; tuned: the
// suite's server) and leaves the server's durability as it found it. Each run drains the
// seven backlogs one after the other, so the ratios compare figures of the same minute.
OrderedDrainResults measure_ordered_drain(BenchContext& context);

}  // namespace outbox::bench
