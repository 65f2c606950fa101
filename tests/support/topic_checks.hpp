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

// CHECKs that every record is one of TestDatabase::insert_events(prefix, "order", aggregates)
// as the relay sends it: topic outbox.order, key = aggregate id, value = payload, and the
// event_id / event_type / event_version / aggregate_type headers.
void check_insert_events_records(const std::vector<harness::KafkaRecord>& records,
                                 const std::string& prefix, int aggregates);

}  // namespace outbox::test
