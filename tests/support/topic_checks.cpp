#include "topic_checks.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <utility>

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

std::string first_few(const std::vector<std::string>& items, size_t limit) {
  std::string out;
  for (size_t i = 0; i < items.size() && i < limit; ++i)
    out += (i > 0 ? ", " : "") + items[i];
  if (items.size() > limit) out += " and " + std::to_string(items.size() - limit) + " more";
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

long long offsets_without_record(const std::vector<harness::KafkaRecord>& records) {
  std::map<int, std::pair<long long, long long>> partitions;  // last offset, records
  for (const harness::KafkaRecord& record : records) {
    auto [at, fresh] = partitions.try_emplace(record.partition, record.offset, 0);
    at->second.first = std::max(at->second.first, record.offset);
    ++at->second.second;
  }
  long long gaps = 0;
  for (const auto& [partition, last_and_count] : partitions)
    gaps += last_and_count.first + 1 - last_and_count.second;
  return gaps;
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
