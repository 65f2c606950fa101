#pragma once

#include <map>
#include <string>
#include <vector>

#include "harness/kafka_tools.hpp"

namespace outbox::test {

// What a topic holds, counted by the event_id header of each record (read with kcat).
struct TopicTally {
  size_t records = 0;
  std::map<std::string, int> deliveries;  // event id -> records carrying it
  // Records beyond the first of their event.
  int duplicates() const;
  // Ids delivered more than once, "id x3, id x2" (at most `limit`), for failure messages.
  std::string duplicated_ids(size_t limit = 10) const;
};

TopicTally tally(const std::vector<harness::KafkaRecord>& records);

// "a, b, c and 7 more" (at most `limit` named), for failure messages.
std::string first_few(const std::vector<std::string>& items, size_t limit = 10);

// Per-aggregate order on a topic (the key is the aggregate id, the event_version header its
// version): for each aggregate, the versions in log order, counting only the first occurrence
// of each (a re-publish may repeat an older version; it may not overtake a newer one).
struct VersionOrder {
  size_t aggregates = 0;
  long long duplicates = 0;        // records repeating a version already seen for their aggregate
  long long inversions = 0;        // first occurrences that come after a higher version's
  std::vector<std::string> split;  // aggregates found on more than one partition
  std::vector<std::string> reordered;   // aggregates with an inversion
  std::vector<std::string> incomplete;  // aggregates missing one of the versions 1..`versions`
};
VersionOrder version_order(const std::vector<harness::KafkaRecord>& records, int versions);

// Offsets of `records` (one read of a whole topic from the beginning) that hold no record:
// below each partition's last record, those a transaction's commit or abort marker took (a
// control record, which no consumer is given), or those of records the read skipped
// (read_committed: aborted ones). A topic only idempotent, non-transactional producers wrote
// has none.
long long offsets_without_record(const std::vector<harness::KafkaRecord>& records);

// CHECKs that every record is one of TestDatabase::insert_events(prefix, "order", aggregates)
// as the relay sends it: topic outbox.order, key = aggregate id, value = payload, and the
// event_id / event_type / event_version / aggregate_type headers.
void check_insert_events_records(const std::vector<harness::KafkaRecord>& records,
                                 const std::string& prefix, int aggregates);

}  // namespace outbox::test
