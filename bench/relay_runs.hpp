#pragma once

#include <memory>
#include <string>
#include <vector>

#include "bench_context.hpp"
#include "child_process.hpp"
#include "stats.hpp"
#include "test_env.hpp"

namespace outbox::bench {

// An outbox-relay process started with the default configuration (only the connection
// settings, the run's topic and `extra` YAML under relay: are set).
class RelayUnderTest {
 public:
  RelayUnderTest(BenchContext& context, const std::string& topic, const std::string& instance,
                 const std::string& extra_relay_yaml = "");
  ~RelayUnderTest();
  pid_t pid() const { return process_->pid(); }
  // False once the process has exited (a relay that refused its configuration, say).
  bool running() const { return process_->running(); }
  // SIGTERM and wait for the drain; false if it did not exit 0.
  bool stop();
  std::string log() const { return process_->output(); }

 private:
  test::TempDir dir_;
  std::unique_ptr<test::ChildProcess> process_;
};

// Rows per claim of the suite's drains, unless a drain sets batch_size: the N of the L_db(N)
// and L_k(N) they are set beside.
inline constexpr int kBenchBatch = 500;

struct DrainRun {
  double rate = 0;                 // events/s, first to last publish by the database clock
  double relay_cpu_percent = 0;    // summed over the relay processes, % of one core
  double db_cpu_percent = 0;       // mariadbd over the same window
  double broker_cpu_percent = 0;   // the broker's processes (BenchContext::broker_pids())
  double machine_cpu_percent = 0;  // every process of the machine (200 = both cores busy)
  double peak_rss_mib = 0;         // largest peak RSS of the relay processes
  long deliveries = 0;             // messages on the run's topic (kcat)
  long duplicates = 0;             // deliveries - distinct event ids
};

// Loads `events` PENDING rows (one aggregate each, or spread over `aggregates`), runs `relays`
// relay processes until the outbox is drained, and measures the run.
DrainRun drain(BenchContext& context, long events, int relays, bool count_deliveries,
               const std::string& extra_relay_yaml = "", long aggregates = 0);

// The same on rows already in the table.
DrainRun drain_loaded(BenchContext& context, int relays, bool count_deliveries,
                      const std::string& extra_relay_yaml = "");

// The mariadbd pid (from the pid file the bench's MariaDB writes), or 0.
pid_t database_pid();

}  // namespace outbox::bench
