#include "relay_app.hpp"

#include <spdlog/spdlog.h>

#include <condition_variable>
#include <mutex>
#include <stop_token>
#include <thread>
#include <vector>

#include "backoff.hpp"
#include "config/config_diagnostics.hpp"
#include "interruptible_sleep.hpp"
#include "kafka_publisher.hpp"
#include "lease_token.hpp"
#include "mysql/mysql_session.hpp"
#include "mysql_claim_store.hpp"
#include "progress_reporter.hpp"
#include "signal_watcher.hpp"
#include "startup_checks.hpp"
#include "worker.hpp"

namespace outbox {
namespace {

using std::chrono::milliseconds;

enum class Readiness { kReady, kStopped, kFatal };

Readiness wait_for_database(const RelayConfig& config, const std::stop_token& stop) {
  Backoff backoff(config.relay.backoff_initial, config.relay.backoff_max);
  while (!stop.stop_requested()) {
    std::string problem;
    Outcome<std::unique_ptr<MysqlSession>> session =
        MysqlSession::open(config.mysql, SessionSettings{});
    if (session) {
      const CheckResult check = check_database(*session.value());
      if (check.verdict == CheckVerdict::kOk) {
        spdlog::info("mysql {} ready: {}", config.mysql.describe(), check.message);
        return Readiness::kReady;
      }
      if (check.verdict == CheckVerdict::kFatal) {
        spdlog::critical("mysql {}: {}", config.mysql.describe(), check.message);
        return Readiness::kFatal;
      }
      problem = check.message;
    } else {
      problem = session.error().message;
    }
    const Micros pause = backoff.next();
    spdlog::warn("waiting for MySQL: {}; retrying in {}", problem, format_pause(pause));
    sleep_unless_stopped(stop, pause);
  }
  return Readiness::kStopped;
}

Readiness wait_for_broker(const RelayConfig& config, KafkaPublisher& publisher,
                          const std::stop_token& stop) {
  Backoff backoff(config.relay.backoff_initial, config.relay.backoff_max);
  while (!stop.stop_requested()) {
    const Status probed = publisher.probe(milliseconds(2000));
    if (probed) {
      spdlog::info("kafka {} ready", config.kafka.bootstrap_servers);
      return Readiness::kReady;
    }
    const Micros pause = backoff.next();
    spdlog::warn("waiting for Kafka {}: {}; retrying in {}", config.kafka.bootstrap_servers,
                 probed.error().message, format_pause(pause));
    sleep_unless_stopped(stop, pause);
  }
  return Readiness::kStopped;
}

TopicRouter make_router(const KafkaSettings& kafka) {
  // Templates were validated when the config was loaded.
  std::map<std::string, TopicTemplate> overrides;
  for (const ScalarAt& entry : kafka.topics) {
    overrides.emplace(entry.key, TopicTemplate::parse(entry.value).value());
  }
  return TopicRouter(TopicTemplate::parse(kafka.topic).value(), std::move(overrides));
}

}  // namespace

int run_relay(const RelayConfig& config) {
  const std::string instance_id =
      config.relay.instance_id.empty() ? default_instance_id() : config.relay.instance_id;
  spdlog::info(
      "outbox-relay starting: instance {}, {} workers, batch {}, ordering {}, lease {}, poll {}, "
      "mysql {}, kafka {}",
      instance_id, config.relay.workers, config.relay.batch_size,
      config.relay.ordering == Ordering::kNone ? "none" : "per_aggregate",
      format_duration(config.relay.lease), format_duration(config.relay.poll_interval),
      config.mysql.describe(), config.kafka.bootstrap_servers);
  init_mysql_driver();
  const MysqlThreadScope main_thread_mysql;

  std::stop_source stop;
  DrainDeadline drain;
  std::mutex state_mutex;
  std::condition_variable_any state_changed;
  size_t workers_finished = 0;

  const SignalWatcher signals(
      [&](int signal) {
        spdlog::info("{}: draining: no new claims, waiting up to {} for in-flight deliveries",
                     signal_name(signal), format_duration(config.relay.drain_timeout));
        drain.start(config.relay.drain_timeout);
        stop.request_stop();
      },
      [] {
        spdlog::info("SIGHUP: configuration reload is not supported; restart to apply changes");
      });

  Outcome<std::unique_ptr<KafkaPublisher>> publisher =
      KafkaPublisher::create(config.kafka, make_router(config.kafka));
  if (!publisher) {
    spdlog::critical("{}", publisher.error().message);
    return kExitConfig;
  }

  for (Readiness ready : {wait_for_database(config, stop.get_token()),
                          wait_for_broker(config, *publisher.value(), stop.get_token())}) {
    if (ready == Readiness::kFatal) return kExitConfig;
    if (ready == Readiness::kStopped) {
      spdlog::info("stopped before start-up completed; nothing was claimed");
      return 0;
    }
  }

  RelayStats stats;
  PollSchedule polls(config.relay.poll_interval, config.relay.poll_interval_max);
  const auto due_scans = std::make_shared<DueScanSchedule>(config.relay.reclaim_interval);
  const ClaimStoreFactory open_store = [&config,
                                        due_scans]() -> Outcome<std::unique_ptr<ClaimStore>> {
    Outcome<std::unique_ptr<MysqlSession>> session =
        MysqlSession::open(config.mysql, SessionSettings{});
    if (!session) return session.error();
    ClaimPolicy policy;
    policy.ordering = config.relay.ordering;
    policy.due_scan_interval = config.relay.reclaim_interval;
    policy.due_scans = due_scans;
    policy.max_attempts = config.relay.max_attempts;
    policy.retry_backoff_initial = config.relay.retry_backoff_initial;
    policy.retry_backoff_max = config.relay.retry_backoff_max;
    return std::unique_ptr<ClaimStore>(
        std::make_unique<MysqlClaimStore>(std::move(session).value(), policy));
  };
  std::vector<std::jthread> workers;
  for (int index = 0; index < config.relay.workers; ++index) {
    WorkerSettings settings;
    settings.index = index;
    settings.instance_id = instance_id;
    settings.batch_size = static_cast<size_t>(config.relay.batch_size);
    settings.lease = config.relay.lease;
    settings.backoff_initial = config.relay.backoff_initial;
    settings.backoff_max = config.relay.backoff_max;
    settings.max_attempts = config.relay.max_attempts;
    workers.emplace_back([&, settings] {
      const MysqlThreadScope thread_mysql;
      Worker worker(settings, open_store, *publisher.value(), stats, drain, polls);
      worker.run(stop.get_token());
      std::lock_guard lock(state_mutex);
      ++workers_finished;
      state_changed.notify_all();
    });
  }
  spdlog::info("relay running with {} workers", workers.size());
  ProgressReporter progress(stats, config.log.stats_interval);

  std::unique_lock lock(state_mutex);
  state_changed.wait(lock, stop.get_token(), [] { return false; });
  const bool drained = state_changed.wait_until(lock, drain.get(),
                                                [&] { return workers_finished == workers.size(); });
  lock.unlock();
  if (!drained) {
    spdlog::warn(
        "drain deadline reached with deliveries outstanding: abandoning them; their rows are "
        "released (or left to their lease), never marked");
    publisher.value()->abandon_in_flight();
  }
  workers.clear();  // joins
  progress.report_now();
  spdlog::info("drained: {} events published, {} released, {} leases lost; exiting",
               stats.events_published.load(), stats.events_released.load(),
               stats.marks_refused.load());
  return 0;
}

}  // namespace outbox
