#include "vs_debezium.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <stdexcept>
#include <thread>

#include "contenders.hpp"
#include "dataset.hpp"
#include "process_usage.hpp"
#include "relay_runs.hpp"
#include "server_status.hpp"
#include "steady_latency.hpp"
#include "topic_reads.hpp"

namespace outbox::bench {
namespace {

using Clock = std::chrono::steady_clock;

void report_line(const std::string& text) {
  static const auto started = Clock::now();
  std::cerr << "==> ["
            << static_cast<int>(std::chrono::duration<double>(Clock::now() - started).count())
            << " s] " << text << std::endl;
}

long long wall_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The processes the benchmark itself runs besides the system under test: the database server, the
// three brokers, this process (its writer threads included).
std::vector<pid_t> own_processes(const harness::KafkaCluster& cluster) {
  std::vector<pid_t> pids{database_pid(), getpid()};
  for (int node = 1; node <= harness::KafkaCluster::kNodes; ++node) {
    std::ifstream in(cluster.dir() + "/node" + std::to_string(node) + "/pid");
    pid_t pid = 0;
    if (in >> pid) pids.push_back(pid);
  }
  return pids;
}

// Counters at one moment, so a window's cost is the difference of two of them.
struct Snapshot {
  Clock::time_point at;
  double db_cpu = 0;
  double binlog_bytes = 0;
  double questions = 0;
  double machine_busy = 0;
  double own_cpu = 0;  // the benchmark's own processes (own_processes)
};

Snapshot snapshot(BenchContext& context, const std::vector<pid_t>& own) {
  Snapshot now;
  now.at = Clock::now();
  now.db_cpu = cpu_seconds(database_pid());
  now.binlog_bytes = binary_log_bytes(context.session);
  now.questions = statement_counters(context.session).at("Questions");
  now.machine_busy = machine_busy_seconds();
  for (pid_t pid : own)
    now.own_cpu += cpu_seconds(pid);
  return now;
}

double seconds_between(const Snapshot& from, const Snapshot& to) {
  return std::chrono::duration<double>(to.at - from.at).count();
}

// Waits until `topic` holds `messages`; throws after `limit`.
void wait_for_messages(const TopicWatch& watch, long messages, std::chrono::seconds limit,
                       const Contender& system, const std::string& what) {
  const auto deadline = Clock::now() + limit;
  while (watch.messages() < messages) {
    if (Clock::now() > deadline) {
      throw std::runtime_error(what + ": " + std::to_string(watch.messages()) + " of " +
                               std::to_string(messages) + " messages after " +
                               std::to_string(limit.count()) + " s; log:\n" + system.log());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

class Comparison {
 public:
  Comparison(BenchContext& context, const harness::KafkaCluster& cluster)
      : context_(context), cluster_(cluster), own_(own_processes(cluster)) {
    target_.database = create_debezium_account(context.db);
    target_.bootstrap = context.bootstrap;
    target_.schema_changes_topic = "bench.debezium";
    target_.mysql = context.db.on_mysql();
    // Debezium writes the tables' DDL there (include.schema.changes, on by default); the
    // brokers create no topic on their own.
    cluster_.create_topic(target_.schema_changes_topic, 1);
  }

  ProfileFigures profile(const std::string& name, int flush_log_at_trx_commit, int sync_binlog) {
    ProfileFigures figures;
    figures.name = name;
    figures.settings = set_durability(context_.session, flush_log_at_trx_commit, sync_binlog);
    report_line(name + " profile: " + figures.settings);
    for (int run = 0; run < context_.sizes.runs; ++run) {
      // Alternate who goes first, so neither always runs on the warmer (or busier) machine.
      const bool relay_first = run % 2 == 0;
      for (System system : relay_first ? std::vector{System::relay, System::debezium}
                                       : std::vector{System::debezium, System::relay}) {
        report_line(name + ": catch-up of " + std::to_string(context_.sizes.catchup_events) +
                    " events, " + system_name(system) + ", run " + std::to_string(run + 1));
        catch_up(system, system == System::relay ? figures.relay : figures.debezium,
                 figures.other_load_percent, name);
      }
    }
    const double r = figures.relay.catchup_rate.median();
    for (System system : {System::relay, System::debezium}) {
      steady(system, system == System::relay ? figures.relay : figures.debezium, r, name);
    }
    return figures;
  }

  const std::string& producer_settings() const { return producer_settings_; }

 private:
  std::string new_topic(const std::string& label) {
    const std::string topic = context_.next_topic(label);
    // The broker stamps each batch with its own clock when it appends it: the one clock both
    // systems are measured by.
    cluster_.create_topic(topic, 8, {"message.timestamp.type=LogAppendTime"});
    return topic;
  }

  void note_producer(System system, const Contender& contender) {
    if (system == System::debezium && producer_settings_.empty()) {
      producer_settings_ = connect_producer_settings(contender.log());
    }
  }

  void catch_up(System system, SystemFigures& figures, Figure& other_load,
                const std::string& profile) {
    const long events = context_.sizes.catchup_events;
    const std::string topic = new_topic("catchup-" + system_name(system) + "-" + profile);
    clear_outbox(context_);
    auto contender = make_contender(system, context_, target_, topic, ++serial_);
    contender->prepare();
    // The writer's cost of the same events on the same server, to weigh the catch-up's against.
    const Snapshot before_commits = snapshot(context_, own_);
    commit_events(context_, "cu" + std::to_string(serial_), events);
    const Snapshot after_commits = snapshot(context_, own_);
    const TopicWatch watch(context_.bootstrap, topic);
    const Snapshot before = snapshot(context_, own_);
    const long long started_ms = wall_ms();
    contender->start();
    wait_for_messages(watch, events, std::chrono::seconds(600), *contender,
                      system_name(system) + " catch-up");
    const Snapshot after = snapshot(context_, own_);
    const double process_cpu = cpu_seconds(contender->pid());
    figures.peak_rss_mib.runs.push_back(peak_rss_mib(contender->pid()));
    note_producer(system, *contender);
    if (!contender->stop()) ++figures.killed_stops;

    const std::vector<AppendedEvent> appended =
        appended_events(context_.bootstrap, topic, contender->id_header());
    std::set<std::string> distinct;
    long long first = appended.empty() ? 0 : appended.front().append_ms;
    long long last = first;
    for (const AppendedEvent& event : appended) {
      distinct.insert(event.event_id);
      first = std::min(first, event.append_ms);
      last = std::max(last, event.append_ms);
    }
    if (static_cast<long>(distinct.size()) != events) {
      throw std::runtime_error(system_name(system) +
                               " catch-up: " + std::to_string(distinct.size()) +
                               " distinct events of " + std::to_string(events) + " on " + topic);
    }
    figures.catchup_duplicates += static_cast<long>(appended.size() - distinct.size());
    const double per_1k = 1000.0 / static_cast<double>(events);
    figures.catchup_seconds.runs.push_back(static_cast<double>(last - started_ms) / 1000.0);
    figures.startup_seconds.runs.push_back(static_cast<double>(first - started_ms) / 1000.0);
    figures.catchup_rate.runs.push_back(
        last > first ? static_cast<double>(events) / (static_cast<double>(last - first) / 1000.0)
                     : 0);
    figures.db_cpu_per_1k.runs.push_back((after.db_cpu - before.db_cpu) * per_1k);
    figures.writer_db_cpu_per_1k.runs.push_back((after_commits.db_cpu - before_commits.db_cpu) *
                                                per_1k);
    figures.binlog_per_event.runs.push_back((after.binlog_bytes - before.binlog_bytes) /
                                            static_cast<double>(events));
    figures.writer_binlog_per_event.runs.push_back(
        (after_commits.binlog_bytes - before_commits.binlog_bytes) / static_cast<double>(events));
    // The bench's own SHOW GLOBAL STATUS counts once.
    figures.statements_per_1k.runs.push_back((after.questions - before.questions - 1) * per_1k);
    figures.process_cpu_seconds.runs.push_back(process_cpu);
    figures.process_cpu_per_1k.runs.push_back(process_cpu * per_1k);
    const double wall = seconds_between(before, after);
    other_load.runs.push_back(100.0 *
                              (after.machine_busy - before.machine_busy -
                               (after.own_cpu - before.own_cpu) - process_cpu) /
                              wall);
  }

  void steady(System system, SystemFigures& figures, double relay_max, const std::string& profile) {
    const std::string topic = new_topic("steady-" + system_name(system) + "-" + profile);
    clear_outbox(context_);
    context_.db.exec("TRUNCATE TABLE orders");
    auto contender = make_contender(system, context_, target_, topic, ++serial_);
    contender->start();
    contender->wait_ready();
    const TopicWatch watch(context_.bootstrap, topic);
    std::map<int, size_t> phase_of;  // phase id -> index in figures.steady
    for (double rate : {1000.0, 0.5 * relay_max, 0.8 * relay_max}) {
      if (context_.sizes.smoke) rate = std::min(rate, 200.0);
      const int phase = ++phase_counter_;
      report_line(profile + ": steady state, " + system_name(system) + ", " + format_number(rate) +
                  " events/s");
      SteadyPhase result;
      result.target_rate = rate;
      const Snapshot before = snapshot(context_, own_);
      const double cpu_before = cpu_seconds(contender->pid());
      result.achieved_rate = write_orders(context_, rate, phase, [] {});
      const auto writers_done = Clock::now();
      wait_for_messages(watch, std::stol(context_.db.scalar("SELECT COUNT(*) FROM outbox_event")),
                        std::chrono::seconds(300), *contender,
                        system_name(system) + " steady state");
      result.tail_seconds = std::chrono::duration<double>(Clock::now() - writers_done).count();
      const Snapshot after = snapshot(context_, own_);
      const double wall = seconds_between(before, after);
      result.process_cpu_percent = 100.0 * (cpu_seconds(contender->pid()) - cpu_before) / wall;
      result.db_cpu_percent = 100.0 * (after.db_cpu - before.db_cpu) / wall;
      result.statements_per_second = (after.questions - before.questions - 1) / wall;
      phase_of[phase] = figures.steady.size();
      figures.steady.push_back(result);
    }
    figures.steady_peak_rss_mib = peak_rss_mib(contender->pid());
    note_producer(system, *contender);
    if (!contender->stop()) ++figures.killed_stops;
    latencies(topic, contender->id_header(), phase_of, figures);
  }

  // Joins every message's append time with its row's created_at, per phase and window.
  void latencies(const std::string& topic, const std::string& id_header,
                 const std::map<int, size_t>& phase_of, SystemFigures& figures) {
    std::map<std::string, double> created_ms;
    for (const auto& row : context_.db.query(
             "SELECT event_id, UNIX_TIMESTAMP(created_at) * 1000 FROM outbox_event WHERE "
             "event_id LIKE 'lat-%'")) {
      created_ms[row[0]] = std::stod(row[1]);
    }
    std::map<std::string, long long> appended;  // the first append of each event
    long messages = 0;
    for (const AppendedEvent& event : appended_events(context_.bootstrap, topic, id_header)) {
      ++messages;
      auto [at, inserted] = appended.emplace(event.event_id, event.append_ms);
      if (!inserted) at->second = std::min(at->second, event.append_ms);
    }
    figures.steady_duplicates += messages - static_cast<long>(appended.size());
    std::map<std::pair<int, int>, std::vector<double>> samples;  // (phase, window) -> ms
    for (const auto& [id, append_ms] : appended) {
      int phase = 0;
      int window = 0;
      if (std::sscanf(id.c_str(), "lat-%d-%d-", &phase, &window) != 2 || window < 0) continue;
      const auto created = created_ms.find(id);
      if (created == created_ms.end()) continue;
      samples[{phase, window}].push_back(static_cast<double>(append_ms) - created->second);
    }
    for (const auto& [key, sample] : samples) {
      SteadyPhase& phase = figures.steady.at(phase_of.at(key.first));
      phase.p50_ms.runs.push_back(Figure::percentile_of(sample, 50));
      phase.p99_ms.runs.push_back(Figure::percentile_of(sample, 99));
      phase.max_ms.runs.push_back(Figure::percentile_of(sample, 100));
    }
  }

  BenchContext& context_;
  const harness::KafkaCluster& cluster_;
  std::vector<pid_t> own_;
  DebeziumTarget target_;
  std::string producer_settings_;
  int serial_ = 0;
  int phase_counter_ = 0;
};

}  // namespace

DebeziumComparison compare_with_debezium(BenchContext& context,
                                         const harness::KafkaCluster& cluster) {
  const auto started = Clock::now();
  DebeziumComparison result;
  result.versions = debezium_versions();
  result.server = context.db.server_name();
  result.catchup_events = context.sizes.catchup_events;
  const auto [flush_log_at_trx_commit, sync_binlog] = durability(context.session);
  Comparison comparison(context, cluster);
  // The tuned profile is what bench/run.sh's server runs with (scripts/local-mariadb.sh and
  // local-mysql.sh: innodb_flush_log_at_trx_commit=2, sync_binlog=0).
  result.profiles.push_back(comparison.profile("tuned", 2, 0));
  // The smoke run proves the harness works; the durable profile runs the same code.
  if (!context.sizes.smoke) result.profiles.push_back(comparison.profile("durable", 1, 1));
  // The server as the comparison found it.
  set_durability(context.session, flush_log_at_trx_commit, sync_binlog);
  result.producer_settings = comparison.producer_settings();
  result.seconds = std::chrono::duration<double>(Clock::now() - started).count();
  return result;
}

}  // namespace outbox::bench
