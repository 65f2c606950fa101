#pragma once

#include <ostream>

#include "ordered_drain.hpp"

namespace outbox::bench {

// The "Ordered drain" section of report.md: each backlog's drain rate per profile, and the
// three ratios of issue 13 with their targets.
void write_ordered_drain(std::ostream& md, const OrderedDrainResults& results, int runs);

}  // namespace outbox::bench
