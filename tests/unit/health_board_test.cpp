// What /readyz and /healthz read: every source keeps its own word about the database, so no
// source can overwrite another's problem (a monitor whose reads work cannot declare ready a
// relay whose workers cannot write).
#include <catch2/catch.hpp>

#include <thread>

#include "mysql/mysql_error.hpp"
#include "observe/health_board.hpp"
#include "outage_gate.hpp"

using namespace std::chrono_literals;

TEST_CASE("readiness is the first problem any source reports, each source clears only its own",
          "[health]") {
  outbox::HealthBoard health(2);
  CHECK(health.problem().empty());
  const std::string read_only =
      "mysql: read-only (error 1290): claim failed: MySQL error 1290 (HY000): The MariaDB server "
      "is running with the --read-only option so it cannot execute this statement";
  health.set_problem(0, read_only);
  health.set_problem(health.backlog_monitor(), "");  // its reads still work
  CHECK(health.problem() == read_only + " (worker 0)");
  health.set_problem(1, "mysql unreachable (error 2013): claim failed: lost connection");
  CHECK(health.problem() == read_only + " (worker 0)");
  health.set_problem(0, "");
  CHECK(health.problem() ==
        "mysql unreachable (error 2013): claim failed: lost connection (worker 1)");
  health.set_problem(health.backlog_monitor(), "mysql: cannot connect to MySQL");
  health.set_problem(1, "");
  CHECK(health.problem() == "mysql: cannot connect to MySQL (backlog monitor)");
  health.set_problem(health.backlog_monitor(), "");
  CHECK(health.problem().empty());

  health.set_problem(outbox::HealthBoard::kStartUp, "waiting for MySQL: refused");
  CHECK(health.problem() == "waiting for MySQL: refused (start-up)");
}

TEST_CASE("a session-level MySQL error is named for /readyz, a statement's own is not",
          "[health]") {
  CHECK(outbox::session_condition(1290) == "mysql: read-only (error 1290)");
  CHECK(outbox::session_condition(1836) == "mysql: read-only (error 1836)");
  CHECK(outbox::session_condition(2013) == "mysql unreachable (error 2013)");
  CHECK(outbox::session_condition(1062).empty());
  CHECK(outbox::session_condition(1205).empty());
}

TEST_CASE("a loop that stops ticking is named, one that ticks is not", "[health]") {
  outbox::HealthBoard health(2);
  health.tick(outbox::HealthBoard::kStartUp);
  CHECK(health.stalled(1h).empty());
  std::this_thread::sleep_for(20ms);
  CHECK(health.stalled(10ms) == "start-up");
  health.set_started();
  health.tick(1);
  CHECK(health.stalled(10ms) == "worker 0");
}

TEST_CASE("unknown topics nobody asks about any more are forgotten", "[health]") {
  // Topic names come from row data: a relay that met 10,000 made-up aggregate types must not
  // hold 10,000 entries for the rest of its days.
  using Clock = outbox::OutageGate::Clock;
  outbox::OutageGate health(
      outbox::OutageGate::Settings{.unknown_topic_grace = std::chrono::seconds(30)});
  const Clock::time_point start = Clock::now();
  for (int i = 0; i < 10000; ++i)
    CHECK_FALSE(health.unknown_topic("outbox.made-up-" + std::to_string(i), start).give_up);
  CHECK(health.unknown_topics_held() == 10000);
  // One topic is still asked about (its rows keep coming back within the grace), the rest not.
  const auto later = [&](int seconds) { return start + std::chrono::seconds(seconds); };
  CHECK(health.unknown_topic("outbox.made-up-7", later(20)).unknown_for ==
        std::chrono::seconds(20));
  CHECK(health.unknown_topic("outbox.made-up-7", later(100)).give_up);
  CHECK(health.unknown_topics_held() == 1);
  // Asked about again much later: a fresh grace.
  const auto again = health.unknown_topic("outbox.made-up-8", later(100));
  CHECK_FALSE(again.give_up);
  CHECK(again.unknown_for == outbox::Micros(0));
}
