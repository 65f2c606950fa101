#pragma once

#include <string>
#include <vector>

#include "bench_context.hpp"
#include "harness/kafka_cluster.hpp"
#include "stats.hpp"

namespace outbox::bench {

// One load level of the steady state, one system: writers commit orders at `target_rate`
// while the system runs; latency = the broker's append time of the message (LogAppendTime)
// − the row's created_at (CURRENT_TIMESTAMP(6) of the writer's INSERT, just before its
// COMMIT), both on this machine's clock; one value per window.
struct SteadyPhase {
  double target_rate = 0;
  double achieved_rate = 0;
  Figure p50_ms;
  Figure p99_ms;
  Figure max_ms;
  double tail_seconds = 0;           // writers done -> every event on the topic
  double process_cpu_percent = 0;    // the system's process, % of one core, over the phase
  double db_cpu_percent = 0;         // mariadbd (the writers' transactions included)
  double statements_per_second = 0;  // Questions (the writers' statements included)
};

// What one system did in one database profile.
struct SystemFigures {
  // Catch-up: `catchup_events` committed while the system was stopped, then started.
  Figure catchup_seconds;          // process start -> last event appended (broker clock)
  Figure startup_seconds;          // process start -> first event appended
  Figure catchup_rate;             // events / (last append - first append)
  Figure db_cpu_per_1k;            // mariadbd CPU seconds per 1000 events, over the catch-up
  Figure writer_db_cpu_per_1k;     // the same over the commits of the backlog (the writer's cost)
  Figure binlog_per_event;         // binary log bytes per event, over the catch-up
  Figure writer_binlog_per_event;  // the same over the commits of the backlog
  Figure statements_per_1k;        // Questions per 1000 events, over the catch-up
  Figure process_cpu_seconds;      // the system's process, start-up included
  Figure process_cpu_per_1k;       // the same per 1000 events
  Figure peak_rss_mib;             // VmHWM at the end of the catch-up
  long catchup_duplicates = 0;     // messages - distinct event ids, all runs
  std::vector<SteadyPhase> steady;
  double steady_peak_rss_mib = 0;
  long steady_duplicates = 0;
  long killed_stops = 0;  // stops that needed kill -9 (no exit within 180 s of SIGTERM)
};

struct ProfileFigures {
  std::string name;      // "tuned", "durable"
  std::string settings;  // as the server read them back
  SystemFigures relay;
  SystemFigures debezium;
  Figure other_load_percent;  // CPU other processes used during the catch-ups, % of one core
};

struct DebeziumComparison {
  std::vector<ProfileFigures> profiles;
  std::string versions;           // Debezium and Connect, as pinned
  std::string server;             // "MariaDB" or "MySQL": whose connector ran, whose CPU is counted
  std::string producer_settings;  // what Connect's source producer ran with
  long catchup_events = 0;
  double seconds = 0;
};

// The relay and Debezium (Kafka Connect standalone, the MariaDB or MySQL connector as the server
// is, Outbox Event Router) side by side on the context's database server and `cluster`, one after
// the other in each scenario, in the tuned profile (the suite's server) and the durable one
// (innodb_flush_log_at_trx_commit=1, sync_binlog=1; not in a smoke run). Progress on stderr.
DebeziumComparison compare_with_debezium(BenchContext& context,
                                         const harness::KafkaCluster& cluster);

}  // namespace outbox::bench
