#include "relay_app.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <stop_token>
#include <thread>
#include <vector>

#include "backoff.hpp"
#include "byte_budget.hpp"
#include "config/config_diagnostics.hpp"
#include "interruptible_sleep.hpp"
#include "kafka/rdkafka_log_pump.hpp"
#include "lease_store/claim_session_idle.hpp"
#include "lease_store/lease_token.hpp"
#include "lease_store/mysql_lease_store.hpp"
#include "mysql/mysql_session.hpp"
#include "observe/backlog_monitor.hpp"
#include "observe/health_board.hpp"
#include "observe/http_endpoint.hpp"
#include "observe/metrics_exposition.hpp"
#include "observe/progress_reporter.hpp"
#include "observe/startup_extension.hpp"
#include "observe/status_pulse.hpp"
#include "operator/operator_pauses.hpp"
#include "operator/pause_watcher.hpp"
#include "operator/paused_partitions.hpp"
#include "outage_gate.hpp"
#include "publish/kafka_publisher.hpp"
#include "settings/config_reload.hpp"
#include "signal_watcher.hpp"
#include "startup_checks.hpp"
#include "systemd_notify.hpp"
#include "worker.hpp"
#include "worker_threads.hpp"

namespace outbox {
namespace {

using std::chrono::milliseconds;

// How long before the drain deadline the relay purges what is still in flight, so the workers
// can release their rows before the process exits, with or without them: 3 s, or a quarter of
// a short drain_timeout. It comes out of drain_timeout, so the exit comes at most
// relay.drain_timeout after SIGTERM.
Micros abandon_grace(Micros drain_timeout) {
  return std::min<Micros>(std::chrono::seconds(3), drain_timeout / 4);
}

enum class Readiness { kReady, kStopped, kFatal };

Readiness wait_for_database(const RelayConfig& config, const std::string& config_file,
                            HealthBoard& health, const std::stop_token& stop) {
  const SchemaExpectation expected{claim_schema(config), message_column_uses(config.kafka.message),
                                   config_file};
  Backoff backoff(config.relay.backoff_initial, config.relay.backoff_max);
  while (!stop.stop_requested()) {
    health.tick(HealthBoard::kStartUp);
    std::string problem;
    // What /readyz may say: an unauthenticated client learns why the relay waits, not the
    // host, port, user or database it tried (those go to the log, with the server's words).
    std::string public_problem;
    Outcome<std::unique_ptr<MysqlSession>> session =
        MysqlSession::open(config.mysql, SessionSettings{});
    if (session) {
      const CheckResult check = check_database(*session.value(), expected);
      if (check.verdict == CheckVerdict::kOk) {
        spdlog::info("mysql {} ready, {}: {}", config.mysql.describe(), session.value()->tls(),
                     check.message);
        if (!check.warning.empty())
          spdlog::warn("table {}: {}", expected.schema.table_name(), check.warning);
        health.set_problem(HealthBoard::kStartUp, "");
        return Readiness::kReady;
      }
      if (check.verdict == CheckVerdict::kFatal) {
        spdlog::critical("mysql {}: {}", config.mysql.describe(), check.message);
        return Readiness::kFatal;
      }
      problem = check.message;
      public_problem = check.message;  // about the schema: tables and columns
    } else {
      problem = session.error().message;
      public_problem = "cannot connect (details in the log)";
    }
    const Micros pause = backoff.next();
    spdlog::warn("waiting for MySQL: {}; retrying in {}", problem, format_pause(pause));
    health.set_problem(HealthBoard::kStartUp, "waiting for MySQL: " + public_problem);
    systemd::notify_status("waiting for MySQL: " + problem);
    sleep_unless_stopped(stop, pause);
  }
  return Readiness::kStopped;
}

Readiness wait_for_broker(const RelayConfig& config, KafkaPublisher& publisher, HealthBoard& health,
                          const std::stop_token& stop) {
  Backoff backoff(config.relay.backoff_initial, config.relay.backoff_max);
  while (!stop.stop_requested()) {
    health.tick(HealthBoard::kStartUp);
    const Status probed =
        publisher.probe(std::chrono::duration_cast<milliseconds>(kBrokerProbeTimeout));
    if (probed) {
      spdlog::info("kafka {} ready", config.kafka.bootstrap_servers);
      health.set_problem(HealthBoard::kStartUp, "");
      return Readiness::kReady;
    }
    const Micros pause = backoff.next();
    spdlog::warn("waiting for Kafka {}: {}; retrying in {}", config.kafka.bootstrap_servers,
                 probed.error().message, format_pause(pause));
    // The probe's error names no broker (ProducerHandle::probe: librdkafka's error name and
    // whether authentication or the TLS handshake was refused): fine for /readyz.
    health.set_problem(HealthBoard::kStartUp, "waiting for Kafka: " + probed.error().message);
    systemd::notify_status("waiting for Kafka: " + probed.error().message);
    sleep_unless_stopped(stop, pause);
  }
  return Readiness::kStopped;
}

// How often each relay reads outbox_pause: an operator's pause or resume is obeyed by every
// relay of a fleet within about this long. One primary-key read of a small table.
constexpr std::chrono::seconds kPausePollInterval{1};
constexpr std::chrono::seconds kPauseReadTimeout{3};

// The longest the start waits for transactional producers to initialise; the ones not ready
// by then initialise when a batch first needs them.
constexpr std::chrono::seconds kTransactionsInitialiseTimeout{10};

// relay.pipelined_chains: one gapless producer per batch that can be in flight.
PipelineSettings pipeline_settings(const RelayConfig& config, RelayStats& stats) {
  PipelineSettings settings;
  settings.inversions = &stats.order_inversions;
  settings.batches = &stats.pipelined_batches;
  if (config.relay.ordering != DeliveryOrder::kPipelined || config.relay.chain_length == 0) {
    return settings;
  }
  settings.producers = static_cast<size_t>(config.relay.workers) * WorkerSettings{}.pipeline_depth;
  return settings;
}

// relay.ordering: transactional: one transactional producer per batch that can be in flight,
// named after the instance so that a restarted relay fences what its predecessor left open.
TransactionSettings transaction_settings(const RelayConfig& config,
                                         const std::string& instance_id) {
  TransactionSettings settings;
  if (config.relay.ordering != DeliveryOrder::kTransactional) return settings;
  settings.id_prefix = "outbox-relay-" + instance_id;
  settings.producers = static_cast<size_t>(config.relay.workers) * WorkerSettings{}.pipeline_depth;
  settings.timeout = config.relay.lease;
  return settings;
}

// Said once per process, at the first claim session: whether the workers' updates log MINIMAL
// row images (relay.binlog_row_image), and if the account may not set it, what to grant.
void log_row_image_once(const MysqlSession& session) {
  static std::once_flag said;
  std::call_once(said, [&session] {
    if (session.row_image_refusal().empty()) {
      spdlog::info(
          "binlog_row_image MINIMAL on the claim sessions: each update logs the row's key and "
          "the columns it changed, without the statement's text (relay.binlog_row_image)");
    } else {
      spdlog::warn(
          "binlog_row_image stays the server's on the claim sessions, so each update logs the "
          "whole row, payload included: {} (grant SESSION_VARIABLES_ADMIN on MySQL, BINLOG "
          "ADMIN on MariaDB, or set relay.binlog_row_image: server to keep it quiet; "
          "deploy/mysql-grants.sql)",
          session.row_image_refusal());
    }
  });
}

LeaseStoreFactory store_factory(const RelayConfig& config,
                                const std::shared_ptr<DueScanSchedule>& due_scans) {
  return [&config, due_scans]() -> Outcome<std::unique_ptr<LeaseStore>> {
    SessionSettings session_settings;
    session_settings.wait_timeout_seconds = claim_session_wait_timeout_seconds(config.relay.lease);
    session_settings.minimal_row_image = config.relay.minimal_row_image;
    Outcome<std::unique_ptr<MysqlSession>> session =
        MysqlSession::open(config.mysql, session_settings);
    if (!session) return session.error();
    if (config.relay.minimal_row_image) log_row_image_once(*session.value());
    ClaimPolicy policy;
    policy.schema = claim_schema(config);
    policy.ordering = claim_ordering(config.relay);
    policy.chain_length = keeps_aggregate_order(config.relay.ordering)
                              ? static_cast<size_t>(config.relay.chain_length)
                              : 0;
    policy.due_scan_interval = config.relay.reclaim_interval;
    policy.due_scans = due_scans;
    policy.max_attempts = config.relay.max_attempts;
    policy.retry_backoff_initial = config.relay.retry_backoff_initial;
    policy.retry_backoff_max = config.relay.retry_backoff_max;
    policy.max_lease_expiries = config.relay.max_lease_expiries;
    return std::unique_ptr<LeaseStore>(
        std::make_unique<MysqlLeaseStore>(std::move(session).value(), policy));
  };
}

// A password held in mysql.password_file is read again at every connection, so a rotated one
// needs no restart: SIGHUP says whether the file changed. An inline password (or a different
// file) is part of the configuration the workers were started with and needs a restart.
void report_password_change(MysqlEndpoint& running, const MysqlEndpoint& fresh) {
  if (fresh.password == running.password) return;
  if (!fresh.password_file.empty() && fresh.password_file == running.password_file) {
    spdlog::info(
        "SIGHUP: mysql.password_file ({}) holds a new password: connections opened from now on "
        "use it; open ones keep theirs until they reconnect",
        fresh.password_file);
    running.password = fresh.password;
    return;
  }
  spdlog::warn("SIGHUP: mysql.password changed; it takes effect only after a restart");
}

// A kafka.property_files file is read when a producer is created (at start, and when a
// producer is replaced after a fatal error), not by a SIGHUP: one changed in place is named,
// and the running producers keep the value they were created with until a restart. The
// version compared is the file's identity and mtime, never its content.
void report_property_file_changes(const KafkaSettings& running, const KafkaSettings& fresh) {
  for (const KafkaPropertyFile& file : fresh.property_files) {
    for (const KafkaPropertyFile& old : running.property_files) {
      if (old.name != file.name || old.path != file.path || old.version == file.version) continue;
      spdlog::warn(
          "SIGHUP: kafka.property_files.{} ({}) changed; the producers read it when they are "
          "created, so it takes effect only after a restart",
          file.name, file.path);
    }
  }
}

// SIGHUP: re-read and validate the file; apply what can change at runtime, keep everything on
// any error, and name what needs a restart.
void reload(const std::string& file, RelayConfig& running, LiveSettings& live) {
  ConfigDiagnostics diagnostics(file);
  const std::optional<RelayConfig> fresh =
      load_relay_config(file, process_environment(), diagnostics);
  if (!fresh) {
    spdlog::error("SIGHUP: {} is not valid; keeping the running configuration:\n{}", file,
                  diagnostics.render());
    return;
  }
  for (const ConfigProblem& warning : diagnostics.warnings())
    spdlog::warn("SIGHUP: {}", warning.to_string());
  report_password_change(running.mysql, fresh->mysql);
  report_property_file_changes(running.kafka, fresh->kafka);
  const std::vector<std::string> need_restart = apply_reload(running, *fresh, live);
  spdlog::info(
      "SIGHUP: reloaded {}: log.level {}, relay.batch_size {}, relay.poll_interval {}, "
      "relay.poll_interval_max {}, relay.max_events_per_second {}",
      file, running.log.level, running.relay.batch_size,
      format_duration(running.relay.poll_interval),
      format_duration(running.relay.poll_interval_max),
      running.relay.max_events_per_second == 0
          ? std::string("0 (unlimited)")
          : std::to_string(running.relay.max_events_per_second));
  for (const std::string& key : need_restart) {
    spdlog::warn("SIGHUP: {} changed; it takes effect only after a restart", key);
  }
}

}  // namespace

int check_relay_database(const RelayConfig& config) {
  constexpr int kExitUnavailable = 69;
  init_mysql_driver();
  const MysqlThreadScope thread_mysql;
  const SchemaExpectation expected{claim_schema(config), message_column_uses(config.kafka.message),
                                   ""};
  Outcome<std::unique_ptr<MysqlSession>> session =
      MysqlSession::open(config.mysql, SessionSettings{});
  if (!session) {
    std::cerr << "mysql " << config.mysql.describe() << ": " << session.error().message << "\n";
    return kExitUnavailable;
  }
  const CheckResult check = check_database(*session.value(), expected);
  switch (check.verdict) {
    case CheckVerdict::kOk:
      std::cout << "mysql " << config.mysql.describe() << " ready, " << session.value()->tls()
                << ": " << check.message << "\n";
      if (!check.warning.empty()) {
        std::cerr << "warning: table " << expected.schema.table_name() << ": " << check.warning
                  << "\n";
      }
      return 0;
    case CheckVerdict::kFatal:
      std::cerr << "mysql " << config.mysql.describe() << " refused: " << check.message << "\n";
      return kExitConfig;
    case CheckVerdict::kRetry:
      break;
  }
  std::cerr << "mysql " << config.mysql.describe() << " not ready: " << check.message << "\n";
  return kExitUnavailable;
}

namespace {

// One worker's settings: relay.*'s, and its share of relay.max_in_flight_bytes.
WorkerSettings worker_settings(const RelayConfig& config, const std::string& claimant, int index) {
  WorkerSettings settings;
  settings.index = index;
  settings.claimant = claimant;
  settings.lease = config.relay.lease;
  settings.backoff_initial = config.relay.backoff_initial;
  settings.backoff_max = config.relay.backoff_max;
  settings.max_attempts = config.relay.max_attempts;
  settings.max_lease_expiries = config.relay.max_lease_expiries;
  settings.claim_bytes = config.relay.max_in_flight_bytes /
                         (static_cast<uint64_t>(config.relay.workers) * settings.pipeline_depth);
  return settings;
}

// After the stop: waits for the workers to drain until abandon_grace before the deadline, then
// abandons what is still in flight and waits out the deadline. Workers still busy then (inside
// a MySQL statement) are not waited for: the process exits at once, 1 if a worker failed.
void drain_workers(WorkerThreads& workers, const DrainDeadline& drain, Micros drain_timeout,
                   KafkaPublisher& publisher, ProgressReporter& progress,
                   const std::atomic<bool>& worker_failed) {
  const Micros grace = abandon_grace(drain_timeout);
  if (workers.wait_finished(drain.get() - grace)) {
    workers.join();
    return;
  }
  spdlog::warn(
      "drain deadline reached with deliveries outstanding: abandoning them; their rows are "
      "released (or left to their lease), never marked");
  publisher.abandon_in_flight();
  // The purge answers every report at once and send() hands nothing over any more, so the
  // workers release their rows within moments. One still inside a MySQL statement (a claim
  // or a mark, each up to mysql.read_timeout) is not waited for: its rows stay leased until
  // the lease ends, as after a crash, and are published again then.
  if (workers.wait_finished(drain.get())) {
    workers.join();
    return;
  }
  progress.report_now();
  spdlog::error(
      "{} of {} workers still busy {} after the purge, at the drain deadline (inside a MySQL "
      "statement): exiting without them; their rows stay leased until the lease ends and are "
      "then published again",
      workers.busy(), workers.size(), format_pause(grace));
  // Not joined, nothing destroyed: the busy workers still use what the caller's frame holds.
  // Every log line is already flushed (flush_on trace).
  std::_Exit(worker_failed.load() ? 1 : 0);
}

}  // namespace

int run_relay(const RelayConfig& config, const std::string& config_file) {
  // First, so it outlives every producer: librdkafka's lines are written by its thread, never
  // by the broker threads that carry the acknowledgements.
  const RdKafkaLogPump rdkafka_log;
  const std::string instance_id =
      config.relay.instance_id.empty() ? default_instance_id() : config.relay.instance_id;
  // Every lease token of this process start begins with it.
  const std::string claimant = claimant_id(instance_id);
  spdlog::info(
      "outbox-relay starting: claimant {}, {} workers, batch {}, ordering {}, lease {}, poll {}, "
      "mysql {}, kafka {}",
      claimant, config.relay.workers, config.relay.batch_size, ordering_name(config.relay),
      format_duration(config.relay.lease), format_duration(config.relay.poll_interval),
      config.mysql.describe(), config.kafka.bootstrap_servers);
  init_mysql_driver();
  const MysqlThreadScope main_thread_mysql;

  std::stop_source stop;
  DrainDeadline drain;
  RelayStats stats;
  HealthBoard health(config.relay.workers);
  PollSchedule polls(config.relay.poll_interval, config.relay.poll_interval_max);
  EventRate event_rate(config.relay.max_events_per_second);
  LiveSettings live{static_cast<size_t>(config.relay.batch_size), polls, event_rate};
  RelayConfig running = config;

  std::atomic<bool> worker_failed{false};
  std::once_flag drain_started;
  const auto begin_drain = [&] {
    std::call_once(drain_started, [&] {
      health.set_draining();
      systemd::notify_stopping();
      drain.start(config.relay.drain_timeout);
      stop.request_stop();
    });
  };

  const SignalWatcher signals(
      [&](int signal) {
        spdlog::info("{}: draining: no new claims, waiting up to {} for in-flight deliveries",
                     signal_name(signal), format_duration(config.relay.drain_timeout));
        begin_drain();
      },
      [&] {
        try {
          reload(config_file, running, live);
        } catch (const std::exception& e) {
          spdlog::error("SIGHUP: reload failed ({}); keeping the running configuration", e.what());
        }
      });

  // Before the publisher: its producers' poll threads write it until they are gone.
  DeliveryClock delivery_reports;
  Outcome<std::unique_ptr<KafkaPublisher>> publisher = KafkaPublisher::create(
      config.kafka, topic_router(config.kafka),
      ProducerCounters{&stats.broker_errors, &stats.kafka_requests, &delivery_reports},
      transaction_settings(config, instance_id), pipeline_settings(config, stats));
  if (!publisher) {
    spdlog::critical("{}", publisher.error().message);
    return kExitConfig;
  }
  const BacklogMonitor backlog(config.mysql, claim_schema(config), config.metrics.backlog_interval,
                               claim_ordering(config.relay), health);
  const auto stall_after =
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(config.metrics.stall_timeout);
  OutageGate::Settings outage_gate_settings;
  outage_gate_settings.unknown_topic_grace = config.relay.unknown_topic_grace;
  outage_gate_settings.probe_interval_initial = config.relay.backoff_initial;
  outage_gate_settings.probe_interval_max = config.relay.backoff_max;
  OutageGate outage_gate(outage_gate_settings, &delivery_reports);
  PausedPartitions paused_partitions(PausedPartitions::Settings{
      .probe_events = outage_gate_settings.probe_events,
      .probe_interval_initial = outage_gate_settings.probe_interval_initial,
      .probe_interval_max = outage_gate_settings.probe_interval_max,
      .recheck = config.relay.partition_recheck});
  ByteBudget in_flight_bytes(config.relay.max_in_flight_bytes);
  OperatorPauses operator_pauses;
  const auto outage = [&] { return outage_gate.outage(std::chrono::steady_clock::now()); };
  const auto ready = [&] {
    return health.started() && !health.draining() && health.problem().empty() &&
           publisher.value()->healthy() && !outage();
  };
  const auto not_ready_because = [&]() -> std::string {
    if (!health.started()) {
      const std::string waiting = health.problem();
      return waiting.empty() ? "starting" : "starting: " + waiting;
    }
    if (health.draining()) return "draining";
    if (const std::optional<std::string> down = outage()) {
      return "kafka outage, claims paused: " + *down;
    }
    if (std::string problem = health.problem(); !problem.empty()) return problem;
    return "kafka unreachable or producer failed";
  };
  std::unique_ptr<HttpEndpoint> http;
  if (!config.metrics.listen.empty()) {
    Outcome<std::unique_ptr<HttpEndpoint>> started = HttpEndpoint::start(
        config.metrics.listen,
        HttpHandlers{
            [&] {
              return render_metrics(MetricsSources{
                  stats, backlog, health, [&] { return publisher.value()->queue_length(); }, ready,
                  [&] { return outage().has_value(); }, [&] { return outage_gate.outages_total(); },
                  [&] { return paused_partitions.paused_per_topic(); },
                  [&] { return paused_partitions.pauses_total(); },
                  [&] { return event_rate.rate(); }, [&] { return event_rate.limited_seconds(); },
                  [&] { return operator_pauses.gauge(); }});
            },
            [&] {
              const std::string stalled = health.stalled(stall_after);
              return stalled.empty() ? ProbeResult{true, "ok"}
                                     : ProbeResult{false, "no progress: " + stalled};
            },
            [&] {
              if (ready()) return ProbeResult{true, "ready"};
              return ProbeResult{false, not_ready_because()};
            }});
    if (!started) {
      // Not EX_CONFIG: a port in use may be free on the next start.
      spdlog::critical("{}", started.error().message);
      return 1;
    }
    http = std::move(started).value();
    spdlog::info("metrics and health on http://{}:{} (/metrics, /healthz, /readyz)", http->host(),
                 http->port());
  }

  // One after the other: a fatal database check (exit 78) must not wait for Kafka first.
  // However long they take, systemd's start timeout is extended while they go round.
  Readiness readiness = Readiness::kStopped;
  {
    const StartupExtension extension(health, stall_after);
    readiness = wait_for_database(config, config_file, health, stop.get_token());
    if (readiness == Readiness::kReady) {
      readiness = wait_for_broker(config, *publisher.value(), health, stop.get_token());
    }
  }
  if (readiness == Readiness::kFatal) return kExitConfig;
  if (readiness == Readiness::kStopped) {
    spdlog::info("stopped before start-up completed; nothing was claimed");
    return 0;
  }
  // Before the first claim: each transactional producer's initialisation fences the producer
  // of the same id a predecessor (this relay before a restart) left, and aborts its open
  // transaction, which read_committed consumers of its partitions wait behind.
  publisher.value()->initialise_transactions(std::chrono::steady_clock::now() +
                                             kTransactionsInitialiseTimeout);

  // Before the first claim: what an operator paused is held from the first event on.
  // Its statements are one primary-key read of a small table: a short read timeout bounds how
  // long a server that stopped answering holds the watcher, and with it the exit, which joins
  // it after the drain (with mysql.read_timeout, 30 s by default, past the drain's bound).
  MysqlEndpoint watcher_endpoint = config.mysql;
  watcher_endpoint.read_timeout =
      std::min<Micros>(watcher_endpoint.read_timeout, kPauseReadTimeout);
  PauseWatcher pause_watcher(watcher_endpoint, claim_schema(config).table(), operator_pauses,
                             kPausePollInterval);
  if (!pause_watcher.wait_until_known(stop.get_token())) {
    spdlog::info("stopped before start-up completed; nothing was claimed");
    return 0;
  }
  const LeaseStoreFactory open_store =
      store_factory(config, std::make_shared<DueScanSchedule>(config.relay.reclaim_interval));
  health.set_started();
  WorkerThreads workers(config.relay.workers, [&](int index) {
    const WorkerSettings settings = worker_settings(config, claimant, index);
    const MysqlThreadScope thread_mysql;
    Worker worker(
        settings, open_store,
        WorkerShared{*publisher.value(), stats, drain, polls, health, live.batch_size, outage_gate,
                     in_flight_bytes, paused_partitions, event_rate, operator_pauses});
    try {
      worker.run(stop.get_token());
    } catch (const std::exception& e) {
      // Not std::terminate: the other workers drain, and the exit status says it failed.
      worker_failed.store(true);
      spdlog::critical("worker {} failed: {}; draining the others and exiting", settings.index,
                       e.what());
      begin_drain();
    }
  });
  spdlog::info("relay running with {} workers", workers.size());
  systemd::notify_ready();
  ProgressReporter progress(stats, config.log.stats_interval);
  const StatusPulse pulse(stats, backlog, health, stall_after);

  workers.wait_for_stop(stop.get_token());
  drain_workers(workers, drain, config.relay.drain_timeout, *publisher.value(), progress,
                worker_failed);
  progress.report_now();
  // The ordering figures too: outbox-verify ordering reads them from this line.
  spdlog::info(
      "drained: {} events published, {} released, {} leases lost, {} chained, {} pipelined "
      "batches, {} order inversions; exiting",
      stats.events_published.load(), stats.events_released.load(), stats.marks_refused.load(),
      stats.events_chained.load(), stats.pipelined_batches.load(), stats.order_inversions.load());
  return worker_failed.load() ? 1 : 0;
}

}  // namespace outbox
