#include "harness/version_order.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

namespace outbox::harness {

VersionOrder version_order(const std::vector<KafkaRecord>& records, int versions) {
  std::map<std::string, std::vector<std::pair<long long, int>>> log_of;  // offset, version
  std::map<std::string, std::set<int>> partitions_of;
  VersionOrder order;
  for (const auto& record : records) {
    const auto version = record.headers.find("event_version");
    // A record without a version cannot be placed: its aggregate counts as incomplete.
    const int number = version == record.headers.end() ? 0 : std::stoi(version->second);
    log_of[record.key].emplace_back(record.offset, number);
    partitions_of[record.key].insert(record.partition);
  }
  order.aggregates = log_of.size();
  for (auto& [aggregate, entries] : log_of) {
    if (partitions_of[aggregate].size() != 1) order.split.push_back(aggregate);
    std::sort(entries.begin(), entries.end());
    std::set<int> seen;
    int highest = 0;
    long long inversions = 0;
    for (const auto& [offset, version] : entries) {
      if (!seen.insert(version).second) {
        ++order.duplicates;
        continue;
      }
      if (version < highest) ++inversions;
      highest = std::max(highest, version);
    }
    order.inversions += inversions;
    if (inversions > 0) order.reordered.push_back(aggregate);
    if (seen.size() != static_cast<size_t>(versions) || *seen.begin() != 1 ||
        *seen.rbegin() != versions) {
      order.incomplete.push_back(aggregate);
    }
  }
  return order;
}

}  // namespace outbox::harness
