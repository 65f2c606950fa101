#pragma once

#include <memory>
#include <string>
#include "bench_context.hpp"

#include "lease_store/lease_sql.hpp"
#include "publish/kafka_publisher.hpp"
#include "stats.hpp"

namespace outbox::bench {

// L_db(N): the relay's exact claim and mark transactions (MysqlLeaseStore, default policy)
// over preloaded PENDING rows, no broker: events/s with `connections` threads, each with
// its own session, claiming batches of N and marking them. N = 500 drains a backlog as large
// as the relay's drain, N = 100 half of it, N = 1 runs for baseline_seconds.
// `ordering`: the claim policy's (none claims without looking at aggregates, and wakes nothing).
Figure measure_db_limit(BenchContext& context, int batch, int connections,
                        Ordering ordering = Ordering::kPerAggregate);

// Event i of the publish baselines: its own aggregate, version 1, a payload of the size the
// benchmark's rows have.
OutboxEvent sample_event(int i);

// A publisher on the relay's publish path (KafkaPublisher, default producer properties) to a
// fresh topic of its own (`label` and a counter), the broker checked reachable.
std::unique_ptr<KafkaPublisher> open_bench_publisher(BenchContext& context,
                                                     const std::string& label);

// L_k(N): the relay's exact publish path (KafkaPublisher, default producer properties) to the
// test broker, no database: events/s with `threads` senders, each sending batches of N
// messages of the benchmark's payload size and waiting for all their delivery reports.
Figure measure_broker_limit(BenchContext& context, int batch, int threads);

}  // namespace outbox::bench
