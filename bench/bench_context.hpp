#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "harness/kafka_cluster.hpp"
#include "mysql/mysql_session.hpp"
#include "test_database.hpp"
#include "test_kafka.hpp"

namespace outbox::bench {

// Sizes of one benchmark run: the full suite, or a seconds-long smoke run that only proves the
// suite still works (CI).
struct BenchSizes {
  int runs = 3;
  int drain_events = 200'000;
  int memory_events = 1'000'000;
  int retained_published_large = 10'000'000;
  int scale_events = 40'000;
  int catchup_events = 200'000;  // the Debezium comparison's backlog
  double baseline_seconds = 3;
  double latency_window_seconds = 10;
  int latency_windows = 3;
  double idle_seconds = 10;
  int claim_samples = 200;
  bool smoke = false;
  // The real-cluster section ("The same on a real Kafka cluster"): off with --no-real-cluster,
  // for the smoke run that must not hold one of the suite's two cluster slots.
  bool real_cluster = true;

  static BenchSizes full() { return BenchSizes{}; }
  static BenchSizes smoke_run();
};

// What every scenario works with: one database, one broker, a session for the bench's own
// bookkeeping queries (cheap, prepared, on a connection of its own).
struct BenchContext {
  BenchSizes sizes;
  test::TestDatabase& db;
  // The suite's test broker (its control commands); null when the run uses a real cluster.
  test::TestBroker* broker;
  // Where relays and readers connect: the test broker's or the real cluster's bootstrap.
  std::string bootstrap;
  MysqlSession& session;
  std::string out_dir;
  int topic_counter = 0;
  // The real cluster while a scenario runs on it (broker is then null); null otherwise.
  const harness::KafkaCluster* cluster = nullptr;

  // A fresh topic per relay run, so counting deliveries with kcat never mixes runs (and the
  // mock cluster's per-partition size cap never drops what a run wrote).
  std::string next_topic(const std::string& label);
  // Creates `topic` (8 partitions, replication 3) on whichever broker the context points at:
  // the real cluster has automatic topic creation off, and creating it before a clock starts
  // keeps broker-side creation out of every figure.
  void create_topic(const std::string& topic) const;
  // The broker's processes (the test broker's, or the real cluster's three JVMs), for CPU
  // shares: on this machine they share the cores with the relay and MariaDB.
  std::vector<pid_t> broker_pids() const;
};

}  // namespace outbox::bench
