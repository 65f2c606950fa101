#pragma once

#include <string>
#include <vector>

#include "harness/kafka_tools.hpp"

namespace outbox::harness {

// Per-aggregate order on a topic (the key is the aggregate id, the event_version header its
// version): for each aggregate, the versions in log order, counting only the first occurrence
// of each (a re-publish may repeat an older version; it may not overtake a newer one). What the
// ordering tests and `outbox-verify ordering` judge a topic by.
struct VersionOrder {
  size_t aggregates = 0;
  long long duplicates = 0;        // records repeating a version already seen for their aggregate
  long long inversions = 0;        // first occurrences that come after a higher version's
  std::vector<std::string> split;  // aggregates found on more than one partition
  std::vector<std::string> reordered;   // aggregates with an inversion
  std::vector<std::string> incomplete;  // aggregates missing one of the versions 1..`versions`
};
VersionOrder version_order(const std::vector<KafkaRecord>& records, int versions);

}  // namespace outbox::harness
