#include "topic_checks.hpp"

#include <catch2/catch.hpp>

#include "test_database.hpp"

namespace outbox::test {

int TopicTally::duplicates() const {
  int extra = 0;
  for (const auto& [id, count] : deliveries)
    extra += count - 1;
  return extra;
}

std::string TopicTally::duplicated_ids(size_t limit) const {
  std::string out;
  size_t listed = 0;
  for (const auto& [id, count] : deliveries) {
    if (count < 2 || listed++ >= limit) continue;
    out += (out.empty() ? "" : ", ") + id + " x" + std::to_string(count);
  }
  return out;
}

TopicTally tally(const std::vector<harness::KafkaRecord>& records) {
  TopicTally result;
  result.records = records.size();
  for (const auto& record : records) {
    const auto id = record.headers.find("event_id");
    ++result.deliveries[id == record.headers.end() ? std::string("<no event_id header>")
                                                   : id->second];
  }
  return result;
}

void check_insert_events_records(const std::vector<harness::KafkaRecord>& records,
                                 const std::string& prefix, int aggregates) {
  for (const auto& record : records) {
    const std::string& id = record.headers.at("event_id");
    const int seq = std::stoi(id.substr(prefix.size() + 1));
    REQUIRE(id == event_id(prefix, seq));
    CHECK(record.topic == "outbox.order");
    CHECK(record.key == "agg-" + std::to_string(seq % aggregates));
    CHECK(record.value == "{\"seq\": " + std::to_string(seq) + "}");
    CHECK(record.headers.at("event_type") == "ORDER_ACCEPTED");
    CHECK(record.headers.at("event_version") == "1");
    CHECK(record.headers.at("aggregate_type") == "order");
  }
}

}  // namespace outbox::test
