// The consumer's bookkeeping of held partitions: a failed message is retried first, after a
// growing pause, and nothing past it is processed until it settled.
#include <catch2/catch.hpp>

#include "partition_holds.hpp"

using namespace std::chrono_literals;
using outbox::consumer::PartitionHolds;
using outbox::consumer::TopicPartition;

TEST_CASE("a failed message holds its partition, with a growing pause per attempt",
          "[partition-holds]") {
  PartitionHolds holds(100ms, 1s);
  const TopicPartition p0{"outbox.order", 0};
  const TopicPartition p1{"outbox.order", 1};
  const auto t0 = PartitionHolds::Clock::now();
  CHECK(holds.may_process(p0, 7));

  const auto& first = holds.failed(p0, 7, t0, true);
  CHECK(first.attempts == 1);
  CHECK(first.resume_at - t0 >= 50ms);  // jitter: half to all of the pause
  CHECK(first.resume_at - t0 <= 100ms);
  CHECK_FALSE(holds.may_process(p0, 7));  // paused
  CHECK_FALSE(holds.may_process(p0, 8));
  CHECK(holds.may_process(p1, 3));  // other partitions flow
  CHECK(holds.next_resume() == first.resume_at);

  CHECK(holds.take_due(t0).empty());
  CHECK(holds.take_due(t0 + 100ms) == std::vector<TopicPartition>{p0});
  CHECK(holds.take_due(t0 + 200ms).empty());  // resumed once
  CHECK(holds.may_process(p0, 7));            // the held message comes back first
  CHECK(holds.may_process(p0, 5));            // an earlier one (after a rebalance) too
  CHECK_FALSE(holds.may_process(p0, 8));      // never past it

  const auto& second = holds.failed(p0, 7, t0 + 100ms, true);
  CHECK(second.attempts == 2);
  CHECK(second.resume_at - (t0 + 100ms) >= 100ms);
  CHECK(second.resume_at - (t0 + 100ms) <= 200ms);
  for (int i = 0; i < 10; ++i)
    (void)holds.failed(p0, 7, t0, true);
  CHECK(holds.find(p0)->resume_at - t0 <= 1s);  // capped

  holds.settled(p0);
  CHECK(holds.may_process(p0, 8));
  CHECK(holds.size() == 0);
  // The next failure starts over.
  CHECK(holds.failed(p0, 8, t0, true).attempts == 1);
  CHECK(holds.find(p0)->resume_at - t0 <= 100ms);
}

TEST_CASE("a rewind that did not take is repeated without counting an attempt",
          "[partition-holds]") {
  PartitionHolds holds(10ms, 1s);
  const TopicPartition p0{"t", 0};
  const auto t0 = PartitionHolds::Clock::now();
  (void)holds.failed(p0, 3, t0, true);
  (void)holds.take_due(t0 + 1s);
  holds.rewind_again(p0, t0 + 1s);
  CHECK_FALSE(holds.may_process(p0, 3));
  CHECK(holds.take_due(t0 + 1s) == std::vector<TopicPartition>{p0});
  CHECK(holds.find(p0)->attempts == 1);
}

TEST_CASE("a revoked partition forgets its hold: the next owner retries", "[partition-holds]") {
  PartitionHolds holds(10ms, 1s);
  const TopicPartition p0{"t", 0};
  (void)holds.failed(p0, 3, PartitionHolds::Clock::now(), true);
  holds.forget(p0);
  CHECK(holds.may_process(p0, 9));
  CHECK_FALSE(holds.next_resume().has_value());
}

TEST_CASE("only the message's own failures count toward max_attempts", "[partition-holds]") {
  PartitionHolds holds(10ms, 1s);
  const TopicPartition p0{"t", 0};
  const auto t0 = PartitionHolds::Clock::now();
  (void)holds.failed(p0, 3, t0, true);
  (void)holds.failed(p0, 3, t0, false);  // a lost session: retried, not counted
  (void)holds.failed(p0, 3, t0, true);
  CHECK(holds.find(p0)->attempts == 3);
  CHECK(holds.counted_failures(p0, 3) == 2);
  CHECK(holds.counted_failures(p0, 4) == 0);  // another message of the partition
  (void)holds.failed(p0, 4, t0, false);       // a new message starts over
  CHECK(holds.counted_failures(p0, 4) == 0);
  CHECK(holds.counted_failures(p0, 3) == 0);
}
