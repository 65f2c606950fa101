// Reading the daemons' per-event log lines back: the formats the relay and the consumer write.
#include <catch2/catch.hpp>

#include "daemon_logs.hpp"
#include "writer_evidence.hpp"

using outbox::verify::HandleOutcome;
using outbox::verify::RelayEventStep;

TEST_CASE("the consumer's handle attempts are read from its log", "[verify-logs]") {
  const std::string log =
      "2026-11-29T16:09:25.254119Z debug [notification-planner:17] event e-1 at "
      "outbox.order/3@1: applied, acknowledged\n"
      "2026-11-29T16:09:26.000001Z info [notification-planner:17] event e-1 at "
      "outbox.order/3@1: already consumed by notification-planner (duplicate delivery): "
      "acknowledged, no effect\n"
      "2026-11-29T16:09:27.5Z warn [notification-planner:17] truncated timestamp line\n"
      "2026-11-29T16:09:28.000000Z warn [notification-planner:17] event e-2 at outbox.order/0@6: "
      "attempt 2 failed: INSERT INTO consumed_event: MySQL error 1452 (23000): Cannot add or "
      "update a child row; not acknowledged, retrying in 100ms\n"
      "2026-11-29T16:09:29.000000Z warn [notification-planner:17] event e-3 at outbox.order/1@2: "
      "attempt 1 failed: COMMIT: MySQL error 2013 (HY000): Lost connection (outcome unknown: not "
      "acknowledged; a retry finds it applied or applies it); not acknowledged, retrying in 50ms\n"
      "2026-11-29T16:09:30.000000Z info [notification-planner:17] progress: applied=1\n"
      "2026-11-29T16:09:31.000000Z debug [notification-planner:17] event e-4 at "
      "outbox.order/2@9 (trace 4bf92f3577b34da6a3ce929d0e0e4736): applied, acknowledged\n";
  const auto attempts = outbox::verify::planner_attempts(log, "planner-1");
  REQUIRE(attempts.size() == 5);
  CHECK(attempts[0].event_id == "e-1");
  CHECK(attempts[0].partition == 3);
  CHECK(attempts[0].offset == 1);
  CHECK(attempts[0].outcome == HandleOutcome::kApplied);
  CHECK(attempts[0].at_us == 1795968565254119LL);
  CHECK(attempts[1].outcome == HandleOutcome::kAlreadyConsumed);
  CHECK(attempts[2].outcome == HandleOutcome::kFailed);
  CHECK(attempts[2].detail ==
        "INSERT INTO consumed_event: MySQL error 1452 (23000): Cannot add or update a child row");
  CHECK_FALSE(attempts[2].commit_unknown);
  CHECK(attempts[3].commit_unknown);
  CHECK(attempts[3].process == "planner-1");
  CHECK(attempts[4].event_id == "e-4");
  CHECK(attempts[4].partition == 2);
  CHECK(attempts[4].offset == 9);
  CHECK(attempts[4].outcome == HandleOutcome::kApplied);
}

TEST_CASE("the relay's claims, deliveries, refused and abandoned marks are read from its log",
          "[verify-logs]") {
  const std::string log =
      "2026-11-29T16:09:25.000000Z debug [outbox-relay:9] event e-1 PUBLISHING: claim "
      "r1-i1/w0/c4, attempt 1\n"
      "2026-11-29T16:09:25.100000Z debug [outbox-relay:9] event e-1 delivered to "
      "outbox.order[2]@17, claim r1-i1/w0/c4\n"
      "2026-11-29T16:09:25.200000Z warn [outbox-relay:9] event e-1: delivered, but claim "
      "r1-i1/w0/c4 no longer holds its lease (it expired and another claim took the row); not "
      "marked: the new owner publishes it again (expected duplicate)\n"
      "2026-11-29T16:09:25.300000Z error [outbox-relay:9] worker 1: claim r1-i1/w1/c9: 3 events "
      "confirmed by the broker could not be marked PUBLISHED (MySQL unreachable); they stay "
      "leased until the lease ends and are then published again: a, b, c\n"
      "2026-11-29T16:09:25.400000Z info [outbox-relay:9] event e-2 attempt 1 of 10: maybe "
      "delivered (topic outbox.order): Local: Message timed out; retrying after backoff\n"
      "2026-11-29T16:09:25.500000Z info [outbox-relay:9] worker 0: claim r1-i1/w0/c5 took over 1 "
      "expired leases: e-3 (was r2-i1/w0/c1)\n"
      "2026-11-29T16:09:25.600000Z debug [outbox-relay:9] event e-4 maybe delivered "
      "(outbox.payment[1]): _MSG_TIMED_OUT: Local: Message timed out; held for its paused "
      "partition, no attempt counted\n";
  const auto read = outbox::verify::relay_log_lines(log, "relay-1.1");
  REQUIRE(read.events.size() == 5);
  CHECK(read.events[0].step == RelayEventStep::kClaimed);
  CHECK(read.events[0].claim == "r1-i1/w0/c4");
  CHECK(read.events[1].step == RelayEventStep::kDelivered);
  CHECK(read.events[1].partition == 2);
  CHECK(read.events[1].offset == 17);
  CHECK(read.events[1].claim == "r1-i1/w0/c4");
  CHECK(read.events[2].step == RelayEventStep::kLeaseLost);
  CHECK(read.events[2].claim == "r1-i1/w0/c4");
  CHECK(read.events[3].step == RelayEventStep::kNotDelivered);
  CHECK(read.events[3].event_id == "e-2");
  // An event held for its paused partition was not confirmed: its resend may be a duplicate.
  CHECK(read.events[4].step == RelayEventStep::kNotDelivered);
  CHECK(read.events[4].event_id == "e-4");
  REQUIRE(read.abandoned.size() == 1);
  CHECK(read.abandoned[0].claim == "r1-i1/w1/c9");
}

TEST_CASE("the writer's summary and its unknown commit are read from its output", "[verify-logs]") {
  const std::string output =
      "2026-11-29T16:08:50.000000Z warn [outbox-loadgen:1] order 1002: COMMIT of order 1002 "
      "(request req-1002, event 52051a9f-3a97-445e-8291-30f0d2e77796) failed: MySQL error 2013 "
      "(HY000): Lost connection to server during query; reconciling on the primary\n"
      "accepted 1 orders: committed 1, already accepted 0, commit outcome unknown 1 (reconciled: "
      "found committed 0, absent and resubmitted 1), rolled back and retried 0 (done)\n";
  const auto summary = outbox::verify::writer_summary(output);
  REQUIRE(summary);
  CHECK(summary->accepted == 1);
  CHECK(summary->committed == 1);
  CHECK(summary->unknown == 1);
  CHECK(summary->reconciled_absent == 1);
  CHECK(summary->reconciled_found == 0);
  CHECK(summary->done);
  const auto unknown = outbox::verify::unknown_commit(output);
  REQUIRE(unknown);
  CHECK(unknown->event_id == "52051a9f-3a97-445e-8291-30f0d2e77796");
  CHECK(unknown->error == "MySQL error 2013 (HY000): Lost connection to server during query");
  CHECK_FALSE(outbox::verify::writer_summary("accepted 3 orders (failed)"));
}
