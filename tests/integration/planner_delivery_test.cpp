// notification-planner end to end over a real broker (the test broker, over TCP) and MariaDB:
// duplicates really delivered and absorbed, a consumer group sharing 10k events (the scenario
// tests/kafka runs with a kill -9 on the real cluster), dead letters.
// Messages are produced and read back with kcat; rows are checked with the mariadb CLI.
#include <catch2/catch.hpp>

#include "cloudevents_check.hpp"
#include "planner_process.hpp"
#include "planner_scenarios.hpp"
#include "poll.hpp"
#include "test_database.hpp"
#include "test_kafka.hpp"

using namespace std::chrono_literals;
using outbox::test::committed_offsets;
using outbox::test::eventually;
using outbox::test::PlannerProcess;
using outbox::test::PlannerTestConfig;
using outbox::test::produce_with_kcat;
using outbox::test::read_topic;
using outbox::test::TestBroker;
using outbox::test::TestDatabase;

namespace {

const std::string& kTopic = outbox::test::kOrderTopic;
const std::string& kDeadLetters = outbox::test::kOrderDeadLetterTopic;

std::string order_payload(int order_id, int version = 1) {
  return "{\"order_id\": " + std::to_string(order_id) +
         ", \"version\": " + std::to_string(version) + "}";
}

}  // namespace

TEST_CASE("the same event delivered 3 times: one consumed_event, one notification_job",
          "[planner][duplicates]") {
  TestDatabase db;
  TestBroker broker(1, 4, {kTopic, kDeadLetters});
  const std::string id = outbox::test::event_id("dup", 1);
  // The relay's duplicate (a lease taken over after the broker confirmed) is the same message
  // again; here kcat produces it three times, on three partitions.
  for (int partition : {0, 1, 2}) {
    produce_with_kcat(broker.bootstrap(), kTopic, partition, "77",
                      {"event_id=" + id, "event_type=ORDER_ACCEPTED"}, {order_payload(77, 2)});
  }
  int on_broker = 0;
  for (const auto& record : read_topic(broker.bootstrap(), kTopic))
    on_broker += record.headers.at("event_id") == id ? 1 : 0;
  REQUIRE(on_broker == 3);

  PlannerProcess planner(db, broker.bootstrap(), PlannerTestConfig{});
  const std::string duplicate_line = "event " + id + " at outbox.order/";
  REQUIRE(eventually([&] {
    return planner.count(": applied, acknowledged") + planner.count("(duplicate delivery)") == 3;
  }));
  planner.stop_gracefully();

  // Three deliveries handled: one took effect, two were recognised as already consumed.
  CHECK(planner.count(duplicate_line) == 3);
  CHECK(planner.count(": applied, acknowledged") == 1);
  CHECK(planner.count(": already consumed by notification-planner (duplicate delivery)") == 2);
  CHECK(planner.count("drained: applied=1 duplicates=2 dead_lettered=0") == 1);
  CHECK(db.count_rows("consumed_event") == 1);
  CHECK(db.query("SELECT event_id, order_id, source_version, status FROM notification_job") ==
        outbox::test::Rows{{id, "77", "2", "PENDING"}});
  // All three acknowledged.
  const auto offsets = committed_offsets(broker.bootstrap(), "notification-planner", kTopic, 4);
  CHECK(offsets.at(0) == 1);
  CHECK(offsets.at(1) == 1);
  CHECK(offsets.at(2) == 1);
}

TEST_CASE("a relay with kafka.profile cloudevents: each event applied once by its ce_id",
          "[planner][cloudevents]") {
  // The SDK's decoding first (cloudevents_check.hpp), then the planner with a redelivered copy.
  TestBroker broker(3, 8, {"outbox.order", "outbox.order.dead-letter"});
  outbox::test::run_cloudevents_profile(broker.bootstrap(), outbox::test::RelayTestConfig{}, true);
}

TEST_CASE("two planners in one group share 10k events: 10k notification jobs", "[planner][group]") {
  TestBroker broker(3, 8, {kTopic, kDeadLetters});
  outbox::test::run_two_planners_in_one_group(broker.bootstrap(), "mock cluster",
                                              outbox::test::PlannerGroupScenario{});
}

TEST_CASE("dead letters: no or bad event_id, unreadable payload, the partition flows on",
          "[planner][dead-letter]") {
  TestDatabase db;
  TestBroker broker(1, 1, {kTopic, kDeadLetters});
  const std::string good = outbox::test::event_id("good", 1);
  const std::string unreadable = outbox::test::event_id("bad-payload", 1);
  // All on partition 0, in this order, with a valid event behind each bad one.
  produce_with_kcat(broker.bootstrap(), kTopic, 0, "1", {"event_type=ORDER_ACCEPTED"},
                    {order_payload(1)});
  produce_with_kcat(broker.bootstrap(), kTopic, 0, "2",
                    {"event_id=" + std::string(40, 'x'), "event_type=ORDER_ACCEPTED"},
                    {order_payload(2)});
  produce_with_kcat(broker.bootstrap(), kTopic, 0, "3",
                    {"event_id=e-a", "event_id=e-b", "event_type=ORDER_ACCEPTED"},
                    {order_payload(3)});
  produce_with_kcat(broker.bootstrap(), kTopic, 0, "4",
                    {"event_id=" + unreadable, "event_type=ORDER_ACCEPTED"}, {"{\"order\": 4}"});
  produce_with_kcat(broker.bootstrap(), kTopic, 0, "5",
                    {"event_id=" + good, "event_type=ORDER_ACCEPTED"}, {order_payload(5)});

  PlannerProcess planner(db, broker.bootstrap(), PlannerTestConfig{});
  REQUIRE(eventually([&] { return db.count_rows("notification_job") == 1; }));
  REQUIRE(eventually([&] {
    return committed_offsets(broker.bootstrap(), "notification-planner", kTopic, 1).at(0) == 5;
  }));
  planner.stop_gracefully();

  CHECK(db.query("SELECT event_id, order_id FROM notification_job") ==
        outbox::test::Rows{{good, "5"}});
  CHECK(db.query("SELECT event_id FROM consumed_event") == outbox::test::Rows{{good}});
  const auto dead = read_topic(broker.bootstrap(), kDeadLetters);
  REQUIRE(dead.size() == 4);
  const std::vector<std::string> reasons{
      "no event_id header (nor ce_id)",
      "event_id header is 40 bytes long (at most 36)",
      "2 event_id headers",
      "rejected by the handler: payload has no integer order_id",
  };
  for (size_t i = 0; i < dead.size(); ++i) {
    INFO("dead letter " << i);
    CHECK(dead[i].headers.at("dead_letter_reason") == reasons[i]);
    CHECK(dead[i].headers.at("dead_letter_consumer") == "notification-planner");
    CHECK(dead[i].headers.at("dead_letter_source") == "outbox.order/0@" + std::to_string(i));
    CHECK(dead[i].key == std::to_string(i + 1));  // the original key and value, unchanged
    CHECK(dead[i].headers.at("event_type") == "ORDER_ACCEPTED");
  }
  CHECK(dead[3].value == "{\"order\": 4}");
  CHECK(planner.count("sent to dead-letter topic outbox.order.dead-letter") == 4);
  CHECK(planner.count("drained: applied=1 duplicates=0 dead_lettered=4") == 1);
}
