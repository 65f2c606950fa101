#include "sequence_rows.hpp"

#include <stdexcept>

namespace outbox::harness {

std::string sequence_rows(long long first, long long last) {
  if (last < first) throw std::invalid_argument("sequence_rows: last < first");
  const long long span = last - first;
  std::string value;   // d0.d + 10 * d1.d + ...
  std::string tables;  // (SELECT 0 AS d UNION ALL ...) d0 CROSS JOIN ...
  long long place = 1;
  int digit = 0;
  do {
    // append, not "d" + std::string: GCC 12's -Wrestrict misfires on the latter when inlined.
    std::string name = "d";
    name += std::to_string(digit);
    if (digit > 0) {
      value += " + ";
      tables += " CROSS JOIN ";
    }
    value += std::to_string(place) + " * " + name + ".d";
    tables += "(SELECT 0 AS d";
    for (int d = 1; d <= 9; ++d)
      tables += " UNION ALL SELECT " + std::to_string(d);
    tables += ") " + name;
    place *= 10;
    ++digit;
  } while (place <= span);
  return "(SELECT " + std::to_string(first) + " + " + value + " AS seq FROM " + tables + " WHERE " +
         value + " <= " + std::to_string(span) + ") seq_rows";
}

}  // namespace outbox::harness
