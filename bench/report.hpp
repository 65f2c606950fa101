#pragma once

#include <string>

#include "suite.hpp"

namespace outbox::bench {

// Writes OUT/report.md (tables: medians with min-max, ratios against the baselines, targets)
// and OUT/*.png through gnuplot when it is installed (the .dat and .gp files stay beside them).
void write_report(const SuiteResults& results, const BenchContext& context,
                  const std::string& environment);

}  // namespace outbox::bench
