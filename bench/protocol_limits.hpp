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

// L_db(batch) measured while the broker carries `events_per_second` from a side producer
// (the relay's publish path, batches of 500 events of the benchmark's payload size): the
// database's limit on a machine whose cores the brokers share, at the load a relay puts on
// them. On the real cluster the three JVMs replicate every event on the same two cores as
// MariaDB, which L_db alone never sees.
struct LoadedDbLimit {
  double db_limit = 0;     // events/s claimed and marked
  double broker_load = 0;  // events/s the side producer got acknowledged meanwhile
  double broker_cpu = 0;   // % of one core, the broker's processes
  double db_cpu = 0;       // mariadbd
  double machine_cpu = 0;  // every process (200: both cores)
};
LoadedDbLimit measure_db_limit_beside_broker_load(BenchContext& context, int batch, int connections,
                                                  double events_per_second);

}  // namespace outbox::bench
