#pragma once

#include <map>
#include <string>

#include "bench_context.hpp"

namespace outbox::bench {

// Statements per second the server executed while only an idle relay was connected (empty
// outbox), from MariaDB's global status counters: "Questions" and its main parts.
std::map<std::string, double> measure_idle_statements(BenchContext& context, double seconds);

}  // namespace outbox::bench
