#pragma once

#include <string>

namespace outbox::harness {

// A derived table `seq_rows` of one BIGINT column `seq` holding first..last, for
// `INSERT ... SELECT ... FROM <this>`: one statement makes any number of rows on both servers.
// MariaDB's sequence engine (seq_1_to_N) does not exist on MySQL, and a recursive CTE stops at
// MySQL's cte_max_recursion_depth (1000), so the rows come from a cross join of ten-row digit
// tables, as many as the span has decimal digits: at most ten times the rows asked for.
// first <= last; both are numbers this code made, never data.
std::string sequence_rows(long long first, long long last);

}  // namespace outbox::harness
