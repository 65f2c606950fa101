// The notification-planner binary's command line and start-up: the relay's conventions
// (FILE:LINE: key.path: what, all at once, exit 78, --check-config, --print-config).
#include <catch2/catch.hpp>

#include "child_process.hpp"
#include "planner_process.hpp"
#include "poll.hpp"
#include "test_database.hpp"
#include "test_env.hpp"
#include "test_kafka.hpp"

using outbox::test::run_command;
using outbox::test::TempDir;

TEST_CASE("planner --check-config reports every problem with file:line and exits 78",
          "[planner-cli]") {
  TempDir dir;
  const std::string file = dir.write("planner.yaml",
                                     "mysql:\n"
                                     "  user: planner\n"
                                     "  database: app\n"
                                     "kafka:\n"
                                     "  bootstrap_servers: k:9092\n"
                                     "  topics: [outbox.order]\n"
                                     "consumer:\n"
                                     "  dead_letter_topic: outbox.order\n"
                                     "  backoff_max: 10\n");
  const auto result = run_command({outbox::test::planner_binary(), "--check-config", file});
  CHECK(result.status == 78);
  CHECK(result.out.empty());
  CHECK(result.err == file +
                          ":8: consumer.dead_letter_topic: must not be one of kafka.topics: a "
                          "dead letter would be consumed again and dead-lettered again, forever\n" +
                          file +
                          ":9: consumer.backoff_max: must be a duration like 30s or 50ms (units "
                          "us, ms, s, m, h, d), got \"10\"\n");
}

TEST_CASE("the planner's example config is valid as shipped", "[planner-cli]") {
  const auto result =
      run_command({outbox::test::planner_binary(), "--check-config",
                   outbox::test::source_dir() + "/config/notification-planner.example.yaml"});
  INFO(result.err);
  CHECK(result.status == 0);
}

TEST_CASE("planner --version names the libraries, bad usage exits 64", "[planner-cli]") {
  const auto version = run_command({outbox::test::planner_binary(), "--version"});
  CHECK(version.status == 0);
  CHECK(version.out.rfind("notification-planner 0.", 0) == 0);
  const auto usage = run_command({outbox::test::planner_binary(), "--config"});
  CHECK(usage.status == 64);
  CHECK(usage.err.find("usage: notification-planner --config FILE") != std::string::npos);
}

TEST_CASE("consumed_event without uq_consumed_event_identity: the planner refuses to start (78)",
          "[planner-cli]") {
  outbox::test::TestDatabase db;
  db.exec(
      "ALTER TABLE consumed_event DROP INDEX uq_consumed_event_identity, "
      "ADD CONSTRAINT uq_consumed_once UNIQUE (consumer_name, event_id)");
  outbox::test::TestBroker broker(1, 1, {"outbox.order"});
  outbox::test::PlannerProcess planner(db, broker.bootstrap(), outbox::test::PlannerTestConfig{});
  const auto status = planner.process().wait_exit(std::chrono::seconds(60));
  INFO(planner.log());
  REQUIRE(status.has_value());
  CHECK(*status == 78);
  CHECK(planner.count("consumed_event needs CONSTRAINT uq_consumed_event_identity UNIQUE "
                      "(consumer_name, event_id) (found: no such index): duplicates are "
                      "recognised by that constraint's name only") == 1);
}
