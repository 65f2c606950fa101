// Idle polling backs off; any worker finding rows brings every worker back to the base
// interval; the rare scans run once per interval per process.
#include <catch2/catch.hpp>

#include "poll_schedule.hpp"

using namespace std::chrono_literals;
using outbox::Micros;

TEST_CASE("empty polls double the pause up to the maximum", "[poll]") {
  const outbox::PollSchedule polls(25ms, 500ms);
  const auto streak = std::chrono::steady_clock::now();
  CHECK(polls.pause(1, streak) == Micros(25ms));
  CHECK(polls.pause(2, streak) == Micros(50ms));
  CHECK(polls.pause(5, streak) == Micros(400ms));
  CHECK(polls.pause(6, streak) == Micros(500ms));
  CHECK(polls.pause(60, streak) == Micros(500ms));
}

TEST_CASE("work found by any worker resets every idle streak", "[poll]") {
  outbox::PollSchedule polls(25ms, 500ms);
  const auto streak = std::chrono::steady_clock::now();
  CHECK(polls.pause(10, streak) == Micros(500ms));
  polls.found_work();
  CHECK(polls.pause(10, streak) == Micros(25ms));
  // A streak that began after the work was found backs off again.
  CHECK(polls.pause(10, std::chrono::steady_clock::now() + 1ms) == Micros(500ms));
}

TEST_CASE("due scans take one turn per interval per process", "[poll]") {
  outbox::DueScanSchedule schedule(1h);
  CHECK(schedule.take_turn());
  CHECK_FALSE(schedule.take_turn());
  CHECK_FALSE(schedule.take_turn());
  outbox::DueScanSchedule every_time(Micros(0));
  CHECK(every_time.take_turn());
  CHECK(every_time.take_turn());
}
