#include "protocol_limits.hpp"

#include <cppconn/prepared_statement.h>
#include <cppconn/resultset.h>

#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "baselines.hpp"
#include "dataset.hpp"
#include "lease_store/lease_sql.hpp"
#include "lease_store/table_columns.hpp"
#include "mysql/mysql_error.hpp"
#include "mysql/mysql_session.hpp"
#include "process_usage.hpp"

namespace outbox::bench {
namespace {

using Clock = std::chrono::steady_clock;

// The columns the relay's claim reads to build a message, payload included: the locked claim
// has no second statement to fetch payloads, it reads them with the rows it locks.
// `payload`: how the relay reads it on this server (lease_sql::Schema::payload_expression: as
// text where MySQL types it JSON).
std::string locked_scan(int batch, const std::string& payload) {
  return "SELECT event_id, aggregate_type, aggregate_id, event_type, event_version, " + payload +
         " FROM outbox_event FORCE INDEX (idx_outbox_pending) WHERE status = 'PENDING'"
         " ORDER BY created_at, event_id LIMIT " +
         std::to_string(batch) + " FOR UPDATE SKIP LOCKED";
}

// The relay's mark without its lease condition: the rows are ours because this transaction
// holds their locks.
std::string locked_mark(size_t ids) {
  return "UPDATE outbox_event SET status = 'PUBLISHED', published_at = CURRENT_TIMESTAMP(6),"
         " published_by = ? WHERE event_id IN (" +
         lease_sql::placeholders(ids) + ") AND status = 'PENDING'";
}

// The payload expression for `session`'s server, read once per thread (each thread of a drain
// keeps its one session).
const std::string& payload_expression(MysqlSession& session) {
  thread_local const MysqlSession* read_for = nullptr;
  thread_local std::string expression;
  if (read_for != &session) {
    lease_sql::Schema schema;
    schema.read_json_as_text(json_columns(session, schema.table_name()));
    expression = schema.payload_expression();
    read_for = &session;
  }
  return expression;
}

std::vector<OutboxEvent> locked_rows(MysqlSession& session, int batch) {
  std::vector<OutboxEvent> events;
  sql::PreparedStatement& scan = session.prepare(locked_scan(batch, payload_expression(session)));
  const std::unique_ptr<sql::ResultSet> rows(scan.executeQuery());
  while (rows->next()) {
    OutboxEvent& event = events.emplace_back();
    event.event_id = rows->getString(1);
    event.aggregate_type = rows->getString(2);
    event.aggregate_id = rows->getString(3);
    event.event_type = rows->getString(4);
    event.event_version = rows->getInt64(5);
    event.payload = rows->getString(6);
  }
  return events;
}

long mark_locked(MysqlSession& session, const std::vector<std::string>& ids,
                 const std::string& owner) {
  long marked = 0;
  for (size_t begin = 0; begin < ids.size(); begin += lease_sql::kMaxIdList) {
    const size_t count = std::min(lease_sql::kMaxIdList, ids.size() - begin);
    sql::PreparedStatement& mark = session.prepare(locked_mark(count));
    mark.setString(1, owner);
    for (size_t i = 0; i < count; ++i)
      mark.setString(static_cast<unsigned>(i + 2), ids[begin + i]);
    marked += mark.executeUpdate();
  }
  return marked;
}

// One transaction: lock up to `batch` rows, mark them, commit. Returns how many it marked.
long locked_claim_and_mark(MysqlSession& session, int batch, const std::string& owner) {
  TransactionScope transaction(session);
  std::vector<std::string> ids;
  for (const OutboxEvent& event : locked_rows(session, batch))
    ids.push_back(event.event_id);
  const long marked = ids.empty() ? 0 : mark_locked(session, ids, owner);
  transaction.commit();
  return marked;
}

// The same with the batch published between the lock and the mark.
long locked_publish_and_mark(MysqlSession& session, Publisher& publisher, int batch,
                             const std::string& owner) {
  TransactionScope transaction(session);
  const std::vector<OutboxEvent> events = locked_rows(session, batch);
  if (events.empty()) {
    transaction.commit();
    return 0;
  }
  const auto in_flight = publisher.send(events, Clock::now() + std::chrono::seconds(30), {});
  if (!in_flight->wait_until(Clock::now() + std::chrono::seconds(90))) {
    throw std::runtime_error("a batch had no delivery reports after 90 s");
  }
  std::vector<std::string> ids;
  for (size_t i = 0; i < events.size(); ++i) {
    const DeliveryOutcome& outcome = in_flight->outcomes()[i];
    if (outcome.status != DeliveryStatus::kDelivered) {
      throw std::runtime_error("event " + events[i].event_id + " not delivered: " + outcome.error);
    }
    ids.push_back(events[i].event_id);
  }
  const long marked = mark_locked(session, ids, owner);
  transaction.commit();
  return marked;
}

// Runs `step` on `connections` sessions of their own over `rows` fresh PENDING rows until
// each finds none left; events/s from start to the last commit.
double drain_locked(BenchContext& context, long rows, int connections,
                    const std::function<long(MysqlSession&, const std::string&)>& step) {
  clear_outbox(context);
  load_events(context, "llk", rows, "PENDING");
  std::vector<std::unique_ptr<MysqlSession>> sessions;
  for (int c = 0; c < connections; ++c) {
    auto session = MysqlSession::open(context.db.endpoint(), SessionSettings{});
    if (!session) throw std::runtime_error(session.error().message);
    sessions.push_back(std::move(session).value());
  }
  std::atomic<long> events{0};
  std::mutex failed_mutex;
  std::string failed;
  const auto started = Clock::now();
  std::vector<std::jthread> threads;
  for (int c = 0; c < connections; ++c) {
    threads.emplace_back([&, c] {
      const MysqlThreadScope scope;
      const std::string owner = "bench-locked-" + std::to_string(c);
      try {
        for (;;) {
          const long marked = step(*sessions[static_cast<size_t>(c)], owner);
          if (marked == 0) break;
          events += marked;
        }
      } catch (const sql::SQLException& e) {
        const std::lock_guard lock(failed_mutex);
        if (failed.empty()) failed = describe_sql_error(e);
      } catch (const std::exception& e) {
        const std::lock_guard lock(failed_mutex);
        if (failed.empty()) failed = e.what();
      }
    });
  }
  threads.clear();
  if (!failed.empty()) throw std::runtime_error("locked claim loop: " + failed);
  if (events.load() != rows) {
    throw std::runtime_error("locked claim loop marked " + std::to_string(events.load()) + " of " +
                             std::to_string(rows) + " rows");
  }
  return static_cast<double>(events.load()) /
         std::chrono::duration<double>(Clock::now() - started).count();
}

}  // namespace

Figure measure_locked_claim_limit(BenchContext& context, int batch, int connections) {
  Figure figure;
  const long rows = context.sizes.smoke ? 5'000 : context.sizes.drain_events;
  for (int run = 0; run < context.sizes.runs; ++run) {
    figure.runs.push_back(drain_locked(context, rows, connections,
                                       [&](MysqlSession& session, const std::string& owner) {
                                         return locked_claim_and_mark(session, batch, owner);
                                       }));
  }
  return figure;
}

Figure measure_locked_publish_limit(BenchContext& context, int batch, int connections) {
  Figure figure;
  const long rows = context.sizes.smoke ? 5'000 : context.sizes.drain_events;
  for (int run = 0; run < context.sizes.runs; ++run) {
    const auto publisher = open_bench_publisher(context, "locked");
    figure.runs.push_back(drain_locked(
        context, rows, connections, [&](MysqlSession& session, const std::string& owner) {
          return locked_publish_and_mark(session, *publisher, batch, owner);
        }));
  }
  return figure;
}

LoadedDbLimit measure_db_limit_beside_broker_load(BenchContext& context, int batch, int connections,
                                                  double events_per_second) {
  constexpr int kLoadBatch = 500;
  constexpr size_t kBatchesInFlight = 8;
  std::vector<OutboxEvent> events;
  for (int i = 0; i < kLoadBatch; ++i)
    events.push_back(sample_event(i));
  const auto publisher = open_bench_publisher(context, "load");
  const std::vector<pid_t> brokers = context.broker_pids();
  std::atomic<long> acknowledged{0};
  // Paced, not as fast as it can: the point is the load a relay at that rate puts on the
  // brokers. A batch is due every kLoadBatch / rate seconds; behind schedule, it goes at once.
  // Declared after everything it uses, so it is stopped and joined before they go.
  std::jthread load([&](const std::stop_token& stop) {
    const auto period = std::chrono::duration<double>(kLoadBatch / events_per_second);
    const auto started = Clock::now();
    std::deque<std::unique_ptr<InFlightDeliveries>> in_flight;
    const auto settle_oldest = [&] {
      in_flight.front()->wait_until(Clock::now() + std::chrono::seconds(60));
      for (const DeliveryOutcome& outcome : in_flight.front()->outcomes()) {
        if (outcome.status == DeliveryStatus::kDelivered) ++acknowledged;
      }
      in_flight.pop_front();
    };
    for (long sent = 0; !stop.stop_requested(); ++sent) {
      const auto due =
          started + std::chrono::duration_cast<Clock::duration>(period * static_cast<double>(sent));
      while (!stop.stop_requested() && Clock::now() < due) {
        std::this_thread::sleep_for(
            std::min<Clock::duration>(due - Clock::now(), std::chrono::milliseconds(5)));
      }
      in_flight.push_back(publisher->send(events, Clock::now() + std::chrono::seconds(30), {}));
      while (in_flight.size() > kBatchesInFlight)
        settle_oldest();
    }
    while (!in_flight.empty())
      settle_oldest();
  });
  // A second of load before the clock starts, so the brokers are at their pace.
  std::this_thread::sleep_for(std::chrono::seconds(1));
  const long acknowledged_before = acknowledged.load();
  const double brokers_before = cpu_seconds(brokers);
  const double machine_before = machine_busy_seconds();
  const auto started = Clock::now();
  LoadedDbLimit result;
  result.db_limit = measure_db_limit(context, batch, connections).median();
  const double wall = std::chrono::duration<double>(Clock::now() - started).count();
  result.broker_load = static_cast<double>(acknowledged.load() - acknowledged_before) / wall;
  result.broker_cpu = 100.0 * (cpu_seconds(brokers) - brokers_before) / wall;
  result.machine_cpu = 100.0 * (machine_busy_seconds() - machine_before) / wall;
  return result;
}

}  // namespace outbox::bench
