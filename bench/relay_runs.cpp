#include "relay_runs.hpp"

#include <signal.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <stdexcept>
#include <thread>

#include "dataset.hpp"
#include "process_usage.hpp"

namespace outbox::bench {
namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

pid_t database_pid() {
  const char* file = std::getenv("OUTBOX_MYSQL_PID_FILE");
  if (file == nullptr) return 0;
  std::ifstream in(file);
  pid_t pid = 0;
  in >> pid;
  return pid;
}

namespace {

// OUTBOX_BENCH_KEEP_LOGS=1: each relay's directory (config, log with a progress line a second)
// stays after the run, to see what a drain did (claims, chains, parks) beside its rate.
bool keep_logs() {
  const char* keep = std::getenv("OUTBOX_BENCH_KEEP_LOGS");
  return keep != nullptr && std::string(keep) == "1";
}

// OUTBOX_BENCH_KAFKA_PROPERTIES="linger.ms=5,compression.type=lz4": producer properties for
// every relay of the run (kafka.properties), to measure a setting against the defaults.
std::string extra_kafka_properties() {
  const char* listed = std::getenv("OUTBOX_BENCH_KAFKA_PROPERTIES");
  if (listed == nullptr || *listed == '\0') return "";
  std::string yaml = "\n  properties:";
  std::string rest = listed;
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    const std::string item = rest.substr(0, comma);
    const size_t equals = item.find('=');
    if (equals == std::string::npos)
      throw std::runtime_error("OUTBOX_BENCH_KAFKA_PROPERTIES: '" + item + "' is not name=value");
    yaml += "\n    " + item.substr(0, equals) + ": \"" + item.substr(equals + 1) + "\"";
    rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
  }
  return yaml;
}

// The suite sets every drain beside L_db(500) and L_k(500), so its relays claim 500 rows too
// unless a drain sets its own batch_size (the relay's default is 2000). The comparison with
// Debezium runs the relay's defaults instead (contenders.cpp).
std::string with_bench_batch(const std::string& relay_yaml) {
  if (relay_yaml.find("batch_size:") != std::string::npos) return relay_yaml;
  return "  batch_size: " + std::to_string(kBenchBatch) + "\n" + relay_yaml;
}

}  // namespace

RelayUnderTest::RelayUnderTest(BenchContext& context, const std::string& topic,
                               const std::string& instance, const std::string& extra_relay_yaml) {
  const MysqlEndpoint endpoint = context.db.endpoint();
  const std::string config =
      dir_.write("relay.yaml",
                 "mysql:\n  host: " + endpoint.host + "\n  port: " + std::to_string(endpoint.port) +
                     "\n  user: " + endpoint.user + "\n  password: " + endpoint.password +
                     "\n  database: " + endpoint.database +
                     "\nkafka:\n  bootstrap_servers: " + context.bootstrap + "\n  topic: " + topic +
                     extra_kafka_properties() + "\nrelay:\n  instance_id: " + instance + "\n" +
                     extra_relay_yaml + "log:\n  stats_interval: " + (keep_logs() ? "1s" : "0s") +
                     "\nmetrics:\n  listen: 127.0.0.1:0\n");
  if (keep_logs()) {
    dir_.keep();
    std::fprintf(stderr, "relay %s: log kept at %s\n", instance.c_str(),
                 dir_.file("relay.log").c_str());
  }
  process_ = std::make_unique<test::ChildProcess>(
      std::vector<std::string>{test::relay_binary(), "--config", config}, dir_.file("relay.log"));
}

RelayUnderTest::~RelayUnderTest() = default;

bool RelayUnderTest::stop() {
  process_->signal(SIGTERM);
  const auto status = process_->wait_exit(std::chrono::seconds(60));
  return status && *status == 0;
}

DrainRun drain(BenchContext& context, long events, int relays, bool count_deliveries,
               const std::string& extra_relay_yaml, long aggregates) {
  clear_outbox(context);
  load_events(context, "drain", events, "PENDING", aggregates);
  return drain_loaded(context, relays, count_deliveries, extra_relay_yaml);
}

DrainRun drain_loaded(BenchContext& context, int relays, bool count_deliveries,
                      const std::string& extra_relay_yaml) {
  const std::string topic = context.next_topic("drain");
  // The topic exists before the clock starts: broker-side topic creation is not the relay's.
  context.create_topic(topic);
  const pid_t db = database_pid();
  const double db_cpu_before = db != 0 ? cpu_seconds(db) : 0;
  const std::vector<pid_t> brokers = context.broker_pids();
  const auto brokers_cpu = [&] { return cpu_seconds(brokers); };
  const double brokers_cpu_before = brokers_cpu();
  const double machine_before = machine_busy_seconds();
  const auto started = Clock::now();
  std::vector<std::unique_ptr<RelayUnderTest>> running;
  for (int i = 0; i < relays; ++i) {
    running.push_back(std::make_unique<RelayUnderTest>(context, topic, "bench-" + std::to_string(i),
                                                       with_bench_batch(extra_relay_yaml)));
  }
  while (!outbox_drained(context)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    // A relay that exited (its configuration refused, say) drains nothing: fail now, with
    // its log, rather than after the 10 minutes.
    for (const auto& relay : running) {
      if (!relay->running()) throw std::runtime_error("a relay exited mid-drain: " + relay->log());
    }
    if (Clock::now() - started > std::chrono::minutes(10)) {
      throw std::runtime_error("drain did not finish in 10 minutes: " + running[0]->log());
    }
  }
  const double wall = std::chrono::duration<double>(Clock::now() - started).count();
  DrainRun run;
  for (const auto& relay : running) {
    run.relay_cpu_percent += 100.0 * cpu_seconds(relay->pid()) / wall;
    run.peak_rss_mib = std::max(run.peak_rss_mib, peak_rss_mib(relay->pid()));
  }
  if (db != 0) run.db_cpu_percent = 100.0 * (cpu_seconds(db) - db_cpu_before) / wall;
  run.broker_cpu_percent = 100.0 * (brokers_cpu() - brokers_cpu_before) / wall;
  run.machine_cpu_percent = 100.0 * (machine_busy_seconds() - machine_before) / wall;
  for (const auto& relay : running) {
    if (!relay->stop()) throw std::runtime_error("relay did not drain cleanly: " + relay->log());
  }
  run.rate = published_rate(context);
  if (count_deliveries) {
    std::map<std::string, int> seen;
    for (const auto& record : test::read_topic(context.bootstrap, topic)) {
      ++seen[record.headers.at("event_id")];
      ++run.deliveries;
    }
    run.duplicates = run.deliveries - static_cast<long>(seen.size());
  }
  return run;
}

}  // namespace outbox::bench
