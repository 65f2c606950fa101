#pragma once

#include <string>

#include "bench_context.hpp"
#include "stats.hpp"

namespace outbox::bench {

// Claim transaction latency (ms) for a batch of 500 with the relay's default policy, sampled
// `claim_samples` times on the current table: each claim is released again, so the table is
// the same for every sample.
Figure measure_claim_latency(BenchContext& context);

// EXPLAIN of every claim scan, as the report shows them.
std::string explain_claim_queries(BenchContext& context);

}  // namespace outbox::bench
