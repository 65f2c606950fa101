#pragma once

#include "bench_context.hpp"
#include "stats.hpp"

namespace outbox::bench {

// What the database allows a relay that writes each row once: the ceiling of a claim that
// takes rows with a locking read and keeps its transaction open until they are marked, so a
// row is never written as claimed (issue 13: "fewer database writes per event"). Each of
// `connections` sessions loops: a transaction, PENDING rows by idx_outbox_pending FOR UPDATE
// SKIP LOCKED with their payloads, the mark of those rows, COMMIT. No broker: compare it with
// measure_db_limit (claim, then mark, two transactions and two writes per row) in the same run.
Figure measure_locked_claim_limit(BenchContext& context, int batch, int connections);

// The same loop with the broker in it, as a relay built that way would run: the rows stay
// locked while the batch goes to context.bootstrap on the relay's publish path
// (KafkaPublisher, default producer properties, one producer shared by the sessions) and only
// acknowledged rows are marked. Events/s from the first claim to the last commit; throws if a
// delivery failed (the runs are on a healthy broker).
Figure measure_locked_publish_limit(BenchContext& context, int batch, int connections);

}  // namespace outbox::bench
