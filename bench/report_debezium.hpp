#pragma once

#include <string>

#include "bench_context.hpp"
#include "vs_debezium.hpp"

namespace outbox::bench {

// Writes OUT/report.md for a comparison run: the "vs Debezium" tables of both database
// profiles (medians with min–max, same-run ratios relay / Debezium, the targets) and the
// plots vs_debezium_p99.png and vs_debezium_throughput.png.
void write_debezium_report(const DebeziumComparison& comparison, const BenchContext& context,
                           const std::string& environment);

}  // namespace outbox::bench
