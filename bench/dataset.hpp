#pragma once

#include <string>

#include "bench_context.hpp"

namespace outbox::bench {

// Empties outbox_event (TRUNCATE: instant, and the next load starts from a compact table).
void clear_outbox(BenchContext& context);

// Inserts `count` rows "<prefix>-<n>" in `status` (PENDING or PUBLISHED), one aggregate per row
// unless `aggregates` > 0 (then each aggregate's rows are its versions 1, 2, 3...), with a
// ~120-byte order payload, created in id order. Written with
// the binary log off for the loading session (it is test data, not traffic to replicate) and
// in slices of 1M rows so no single transaction grows huge.
void load_events(BenchContext& context, const std::string& prefix, long count,
                 const std::string& status, long aggregates = 0);

// Commits `count` PENDING rows "<prefix>-<n>" (one aggregate each, the same payload as
// load_events, created_at = the commit's CURRENT_TIMESTAMP(6)) in transactions of 100 rows,
// with the binary log on: traffic a change-data-capture reader sees, as writers commit it.
void commit_events(BenchContext& context, const std::string& prefix, long count);

// True when no row is waiting (PENDING, PUBLISHING, RETRY, BLOCKED): one index probe.
bool outbox_drained(BenchContext& context);

// Throughput of a drain by the database clock: rows / (last published_at - first).
double published_rate(BenchContext& context);

}  // namespace outbox::bench
