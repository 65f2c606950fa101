#include "baselines.hpp"

#include <atomic>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "dataset.hpp"
#include "lease_store/mysql_lease_store.hpp"
#include "publish/kafka_publisher.hpp"

namespace outbox::bench {
namespace {

using Clock = std::chrono::steady_clock;

std::unique_ptr<MysqlLeaseStore> open_store(BenchContext& context, Ordering ordering) {
  auto session = MysqlSession::open(context.db.endpoint(), SessionSettings{});
  if (!session) throw std::runtime_error(session.error().message);
  ClaimPolicy policy;
  policy.ordering = ordering;
  return std::make_unique<MysqlLeaseStore>(std::move(session).value(), std::move(policy));
}

// A deadlock or lock wait timeout between the connections is part of the load: the relay
// retries those too (after its backoff), the limit at once.
bool transient(const Error& error) {
  return error.message.find("MySQL error 1213 ") != std::string::npos ||
         error.message.find("MySQL error 1205 ") != std::string::npos;
}

}  // namespace

OutboxEvent sample_event(int i) {
  OutboxEvent event;
  event.event_id = "lk-" + std::to_string(i);
  event.aggregate_type = "order";
  event.aggregate_id = "agg-" + std::to_string(i);
  event.event_type = "ORDER_ACCEPTED";
  event.event_version = 1;
  event.payload =
      "{\"order_id\": " + std::to_string(i) +
      ", \"tenant_id\": 7, \"version\": 1, \"status\": \"ACCEPTED\", \"total_cents\": 12990, "
      "\"currency\": \"EUR\", \"items\": 3}";
  return event;
}

std::unique_ptr<KafkaPublisher> open_bench_publisher(BenchContext& context,
                                                     const std::string& label) {
  KafkaSettings kafka;
  kafka.bootstrap_servers = context.bootstrap;
  kafka.topic = context.next_topic(label);
  context.create_topic(kafka.topic);
  auto publisher =
      KafkaPublisher::create(kafka, TopicRouter(TopicTemplate::parse(kafka.topic).value(), {}));
  if (!publisher) throw std::runtime_error(publisher.error().message);
  if (!publisher.value()->probe(std::chrono::milliseconds(5000))) {
    throw std::runtime_error("broker not reachable at " + context.bootstrap);
  }
  return std::move(publisher).value();
}

Figure measure_db_limit(BenchContext& context, int batch, int connections, Ordering ordering) {
  Figure figure;
  // Batches of 100 and more drain a backlog of their own, like the relay's drain (so purge
  // and index churn weigh the same on both); one-row batches are too slow for that and run
  // for a fixed time instead.
  const bool full_drain = batch >= 100;
  const long rows = context.sizes.smoke ? 5'000
                    : batch >= 500      ? context.sizes.drain_events
                    : full_drain        ? context.sizes.drain_events / 2
                                        : 20'000;
  const double seconds = full_drain ? 600 : context.sizes.baseline_seconds;
  for (int run = 0; run < context.sizes.runs; ++run) {
    clear_outbox(context);
    load_events(context, "ldb", rows, "PENDING");
    std::atomic<long> events{0};
    // A connection that stopped on an error would leave the others to drain alone and make
    // the limit look lower than it is: the measurement fails instead.
    std::mutex failed_mutex;
    std::string failed;
    const auto failure = [&](const std::string& message) {
      const std::lock_guard lock(failed_mutex);
      if (failed.empty()) failed = message;
    };
    std::vector<std::unique_ptr<MysqlLeaseStore>> stores;
    for (int c = 0; c < connections; ++c)
      stores.push_back(open_store(context, ordering));
    const auto started = Clock::now();
    const auto deadline = started + std::chrono::duration<double>(seconds);
    std::vector<std::jthread> threads;
    for (int c = 0; c < connections; ++c) {
      threads.emplace_back([&, c] {
        const MysqlThreadScope scope;
        MysqlLeaseStore& store = *stores[static_cast<size_t>(c)];
        uint64_t sequence = 0;
        while (Clock::now() < deadline) {
          const LeaseToken token("bench", c, ++sequence);
          Outcome<ClaimedBatch> claimed =
              store.claim(token, static_cast<size_t>(batch), std::chrono::seconds(60));
          if (!claimed) {
            if (transient(claimed.error())) continue;
            failure(claimed.error().message);
            break;
          }
          if (claimed.value().events.empty()) break;
          std::vector<std::string> ids;
          for (const OutboxEvent& event : claimed.value().events)
            ids.push_back(event.event_id);
          Outcome<MarkResult> marked = store.mark_published(token, ids);
          while (!marked && transient(marked.error()))
            marked = store.mark_published(token, ids);
          if (!marked) {
            failure(marked.error().message);
            break;
          }
          // The relay wakes blocked successors after each mark (per-aggregate mode).
          if (ordering == Ordering::kPerAggregate) (void)store.wake_successors(ids);
          events += static_cast<long>(ids.size());
        }
      });
    }
    threads.clear();
    if (!failed.empty()) throw std::runtime_error("L_db(" + std::to_string(batch) + "): " + failed);
    const double elapsed = std::chrono::duration<double>(Clock::now() - started).count();
    figure.runs.push_back(static_cast<double>(events.load()) / elapsed);
  }
  return figure;
}

Figure measure_broker_limit(BenchContext& context, int batch, int threads_count) {
  Figure figure;
  std::vector<OutboxEvent> events;
  for (int i = 0; i < batch; ++i)
    events.push_back(sample_event(i));
  for (int run = 0; run < context.sizes.runs; ++run) {
    const auto publisher = open_bench_publisher(context, "lk");
    // Warm up: topic creation and connections are not part of the limit.
    publisher->send(events, Clock::now() + std::chrono::seconds(10), {})
        ->wait_until(Clock::now() + std::chrono::seconds(10));
    std::atomic<long> delivered{0};
    const auto started = Clock::now();
    const auto deadline = started + std::chrono::duration<double>(context.sizes.baseline_seconds);
    std::vector<std::jthread> senders;
    for (int t = 0; t < threads_count; ++t) {
      senders.emplace_back([&] {
        while (Clock::now() < deadline) {
          // The baseline has no lease: the enqueue may wait as long as the run lasts.
          auto in_flight =
              publisher->send(events, std::chrono::time_point_cast<Clock::duration>(deadline), {});
          in_flight->wait_until(Clock::time_point::max());
          for (const DeliveryOutcome& outcome : in_flight->outcomes()) {
            if (outcome.status == DeliveryStatus::kDelivered) ++delivered;
          }
        }
      });
    }
    senders.clear();
    const double elapsed = std::chrono::duration<double>(Clock::now() - started).count();
    figure.runs.push_back(static_cast<double>(delivered.load()) / elapsed);
  }
  return figure;
}

}  // namespace outbox::bench
