#pragma once

#include <map>
#include <string>
#include <vector>

#include "harness/kafka_tools.hpp"
#include "harness/version_order.hpp"

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

// Per-aggregate order on a topic (harness/version_order.hpp).
using harness::version_order;
using harness::VersionOrder;

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
