#pragma once

#include <string>

namespace outbox::test {

// notification-planner scenarios run the same way against librdkafka's mock cluster
// (tests/integration) and against the real Kafka cluster (tests/kafka), so both brokers are held
// to the same assertions. The caller creates the topics: outbox.order with `partitions`
// partitions and outbox.order.dead-letter.

struct PlannerGroupScenario {
  int events = 10000;
  int partitions = 8;
  // kill -9 of the second planner while both are applying events, then its restart: the group
  // coordinator moves its partitions to the first planner and back (two real rebalances). A
  // kill that happens to leave no applied-but-unacknowledged event behind (the offset commit
  // had landed) proves nothing: the planner is restarted and killed again, at most 3 times.
  bool kill_and_restart_one = false;
};

// Two notification-planner processes in one consumer group share `events` ORDER_ACCEPTED events
// published by one relay (every event exactly once on the topic, read with kcat). Afterwards:
// one consumed_event row and one notification_job per event, matching its order (mariadb CLI);
// every event applied exactly once by the planners' logs, every other delivery recognised as
// already consumed, and (with the kill) at least one such redelivery of an event the killed
// planner had applied; the group's committed offsets at the end of every partition (read by a
// client outside the group). Prints a [figures] line naming `broker_name`.
void run_two_planners_in_one_group(const std::string& bootstrap, const std::string& broker_name,
                                   const PlannerGroupScenario& scenario);

}  // namespace outbox::test
