#include "observe/progress_reporter.hpp"

#include <spdlog/spdlog.h>

#include "interruptible_sleep.hpp"

namespace outbox {

ProgressReporter::ProgressReporter(const RelayStats& stats, Micros interval)
    : stats_(stats), last_at_(std::chrono::steady_clock::now()) {
  if (interval.count() == 0) return;
  thread_ = std::jthread([this, interval](const std::stop_token& stop) {
    while (sleep_unless_stopped(stop, interval))
      report_now();
  });
}

ProgressReporter::~ProgressReporter() = default;

void ProgressReporter::report_now() {
  std::lock_guard lock(mutex_);
  const auto now = std::chrono::steady_clock::now();
  const uint64_t published = stats_.events_published.load();
  const double seconds = std::chrono::duration<double>(now - last_at_).count();
  const double rate = seconds > 0 ? static_cast<double>(published - last_published_) / seconds : 0;
  last_published_ = published;
  last_at_ = now;
  // librdkafka's request counters only once there is something to say: on a healthy link they
  // stay 0 and would only lengthen every line.
  const BrokerRequestTotals requests = stats_.kafka_requests.totals();
  const std::string kafka_requests =
      requests.any()
          ? fmt::format(
                " kafka_request_retries={} kafka_request_timeouts={} "
                "kafka_transmit_errors={} kafka_disconnects={}",
                requests.retries, requests.timeouts, requests.transmit_errors, requests.disconnects)
          : "";
  // Only while relay.max_events_per_second held claims back since the last line.
  const uint64_t rate_limited = stats_.rate_limited.load();
  const std::string held_back = rate_limited > last_rate_limited_
                                    ? fmt::format(" rate_limited={} (relay.max_events_per_second)",
                                                  rate_limited - last_rate_limited_)
                                    : "";
  last_rate_limited_ = rate_limited;
  spdlog::info(
      "progress: published={} rate={:.0f}/s in_flight={} claimed={} chained={} parked={} "
      "waits={} reclaimed={} delivery_failures={} released={} lease_lost={} mark_abandoned={} "
      "db_errors={}{}{}",
      published, rate, stats_.events_in_flight.load(), stats_.events_claimed.load(),
      stats_.events_chained.load(), stats_.events_parked.load(), stats_.claim_waits.load(),
      stats_.leases_reclaimed.load(), stats_.deliveries_failed.load(),
      stats_.events_released.load(), stats_.marks_refused.load(), stats_.marks_abandoned.load(),
      stats_.db_errors.load(), kafka_requests, held_back);
}

}  // namespace outbox
