#pragma once

#include "bench_context.hpp"
#include "stats.hpp"

namespace outbox::bench {

// L_db(N): the relay's exact claim and mark transactions (MysqlClaimStore, default policy)
// over preloaded PENDING rows, no broker: events/s with `connections` threads, each with
// its own session, claiming batches of N and marking them. N = 500 drains a backlog as large
// as the relay's drain, N = 100 half of it, N = 1 runs for baseline_seconds.
Figure measure_db_limit(BenchContext& context, int batch, int connections);

// L_k(N): the relay's exact publish path (KafkaPublisher, default producer properties) to the
// test broker, no database: events/s with `threads` senders, each sending batches of N
// messages of the benchmark's payload size and waiting for all their delivery reports.
Figure measure_broker_limit(BenchContext& context, int batch, int threads);

}  // namespace outbox::bench
