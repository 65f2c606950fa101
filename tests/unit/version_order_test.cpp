// What the ordering tests and `outbox-verify ordering` judge a topic by: the first occurrence
// of each version of an aggregate, in log order. Shown here on records made up for the purpose
// that it counts what it must, so a passing ordering run means something.
#include <catch2/catch.hpp>

#include "harness/version_order.hpp"

namespace {

outbox::harness::KafkaRecord record(const std::string& aggregate, int version, long long offset,
                                    int partition = 0) {
  outbox::harness::KafkaRecord out;
  out.key = aggregate;
  out.partition = partition;
  out.offset = offset;
  out.headers["event_version"] = std::to_string(version);
  return out;
}

}  // namespace

TEST_CASE("version_order: in order, with a re-published older version, is no inversion",
          "[version-order]") {
  // a: 1 2 1 3 (1 again after 2: a duplicate, allowed); b: 1 2 3.
  const auto order = outbox::harness::version_order(
      {record("a", 1, 0), record("a", 2, 1), record("b", 1, 2), record("a", 1, 3),
       record("b", 2, 4), record("a", 3, 5), record("b", 3, 6)},
      3);
  CHECK(order.aggregates == 2);
  CHECK(order.duplicates == 1);
  CHECK(order.inversions == 0);
  CHECK(order.reordered.empty());
  CHECK(order.incomplete.empty());
  CHECK(order.split.empty());
}

TEST_CASE("version_order: a version first seen after a higher one is an inversion",
          "[version-order]") {
  // a: 1 3 2 (2's first occurrence after 3's); b: 2 1 on two partitions; c misses version 3.
  // Offsets, not the order of the records given, decide.
  const auto order = outbox::harness::version_order(
      {record("a", 2, 7), record("a", 1, 5), record("a", 3, 6), record("b", 2, 1, 0),
       record("b", 1, 2, 1), record("b", 3, 3, 1), record("c", 1, 0), record("c", 2, 1)},
      3);
  CHECK(order.inversions == 2);
  CHECK(order.reordered == std::vector<std::string>{"a", "b"});
  CHECK(order.split == std::vector<std::string>{"b"});
  CHECK(order.incomplete == std::vector<std::string>{"c"});
  CHECK(order.duplicates == 0);
}
