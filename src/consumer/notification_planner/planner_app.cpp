#include "planner_app.hpp"

#include <spdlog/spdlog.h>

#include <stop_token>

#include "event_consumer.hpp"
#include "mysql/mysql_session.hpp"
#include "notification_job_handler.hpp"
#include "signal_watcher.hpp"

namespace outbox::planner {

int run_planner(const PlannerConfig& config) {
  spdlog::info("notification-planner starting: consumer {}, mysql {}, kafka {}",
               config.consumer.consumer.name, config.mysql.describe(),
               config.consumer.kafka.bootstrap_servers);
  init_mysql_driver();
  const MysqlThreadScope main_thread_mysql;
  std::stop_source stop;
  const SignalWatcher signals(
      [&](int signal) {
        spdlog::info("{}: draining: finishing the message in hand, then leaving the group",
                     signal_name(signal));
        stop.request_stop();
      },
      [] {
        spdlog::info("SIGHUP: configuration reload is not supported; restart to apply changes");
      });

  consumer::ConsumerOptions options;
  options.settings = config.consumer;
  options.mysql = config.mysql;
  options.handler = plan_notification;
  options.stats_interval = config.log.stats_interval;
  Outcome<std::unique_ptr<consumer::EventConsumer>> created =
      consumer::EventConsumer::create(std::move(options));
  if (!created) {
    spdlog::critical("{}", created.error().message);
    return kExitConfig;
  }
  switch (created.value()->run(stop.get_token())) {
    case consumer::ConsumerExit::kDrained:
      spdlog::info("drained: {}; exiting", created.value()->stats().describe());
      return 0;
    case consumer::ConsumerExit::kStoppedBeforeStart:
      return 0;
    case consumer::ConsumerExit::kNeedsOperator:
      return kExitConfig;
    case consumer::ConsumerExit::kKafkaFatal:
      return 1;
  }
  return 1;
}

}  // namespace outbox::planner
