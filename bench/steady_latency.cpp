#include "steady_latency.hpp"

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <variant>
#include <vector>

#include "dataset.hpp"
#include "order_writer.hpp"

namespace outbox::bench {
namespace {

using Clock = std::chrono::steady_clock;

// Writers commit concurrently like a service's request threads; one connection cannot commit
// tens of thousands of transactions a second.
constexpr int kWriters = 4;

std::atomic<long> g_next_order{1};

long pending_rows(MysqlSession& session) {
  sql::PreparedStatement& statement = session.prepare(
      "SELECT COUNT(*) FROM outbox_event FORCE INDEX (idx_outbox_pending) WHERE status = "
      "'PENDING'");
  std::unique_ptr<sql::ResultSet> rows(statement.executeQuery());
  rows->next();
  const long count = rows->getInt64(1);
  rows.reset();
  session.commit();
  return count;
}

}  // namespace

std::string latency_event_prefix(int phase, int window) {
  return "lat-" + std::to_string(phase) + "-" + std::to_string(window) + "-";
}

double write_orders(BenchContext& context, double rate, int phase,
                    const std::function<void()>& sample) {
  const double window = context.sizes.latency_window_seconds;
  const int windows = context.sizes.latency_windows;
  // A warm-up window, not measured (index -1): the relay settles into the new rate first.
  const auto warm_up = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(std::min(2.0, window)));
  const auto started = Clock::now() + warm_up;
  const auto ends = started + std::chrono::duration<double>(window * windows);
  std::atomic<long> written{0};
  std::vector<std::jthread> writers;
  for (int writer = 0; writer < kWriters; ++writer) {
    writers.emplace_back([&] {
      const MysqlThreadScope scope;
      writer::OrderWriter order_writer(context.db.endpoint());
      const double per_writer = rate / kWriters;
      for (long n = 0;; ++n) {
        const auto due = started - warm_up +
                         std::chrono::duration_cast<Clock::duration>(
                             std::chrono::duration<double>(n / per_writer));
        if (due >= ends) break;
        std::this_thread::sleep_until(due);
        const double since = std::chrono::duration<double>(Clock::now() - started).count();
        const int index = since < 0 ? -1 : static_cast<int>(since / window);
        const long order = g_next_order++;
        const std::string event_id = latency_event_prefix(phase, index) + std::to_string(order);
        // The writer library's transaction, as a service would commit it.
        const writer::SubmitResult submitted = order_writer.submit(
            {7,
             "req-" + std::to_string(order),
             order,
             event_id,
             1,
             "{\"order_id\": " + std::to_string(order) +
                 ", \"tenant_id\": 7, \"version\": 1, \"status\": \"ACCEPTED\", "
                 "\"total_cents\": 12990, \"currency\": \"EUR\", \"items\": 3}",
             {}});
        if (!std::holds_alternative<writer::Committed>(submitted)) {
          throw std::runtime_error("steady-state writer: " + writer::describe(submitted));
        }
        ++written;
      }
    });
  }
  while (Clock::now() < ends) {
    sample();
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  writers.clear();
  return static_cast<double>(written.load()) /
         (window * windows + std::chrono::duration<double>(warm_up).count());
}

LatencyPhase measure_latency(BenchContext& context, double rate, int phase) {
  LatencyPhase result;
  result.target_rate = rate;
  result.achieved_rate = write_orders(context, rate, phase, [&] {
    result.max_backlog = std::max(result.max_backlog, pending_rows(context.session));
  });
  result.final_backlog = pending_rows(context.session);
  const auto wait_started = Clock::now();
  while (!outbox_drained(context)) {
    if (Clock::now() - wait_started > std::chrono::minutes(5)) {
      throw std::runtime_error("relay did not catch up after the latency phase");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  for (int w = 0; w < context.sizes.latency_windows; ++w) {
    std::vector<double> sample;
    for (const auto& row : context.db.query(
             "SELECT TIMESTAMPDIFF(MICROSECOND, created_at, published_at) FROM outbox_event "
             "WHERE event_id LIKE '" +
             latency_event_prefix(phase, w) + "%'")) {
      sample.push_back(std::stod(row[0]) / 1000.0);
    }
    if (sample.empty()) continue;
    result.p50_ms.runs.push_back(Figure::percentile_of(sample, 50));
    result.p99_ms.runs.push_back(Figure::percentile_of(sample, 99));
    result.max_ms.runs.push_back(Figure::percentile_of(sample, 100));
  }
  return result;
}

}  // namespace outbox::bench
