// outboxctl replay against the relay on the mock cluster (the real cluster's run of the same
// scenario is tests/kafka/kafka_replay_test.cpp), then what is not the scenario's: windows it
// refuses, and a broker it cannot reach.
#include <catch2/catch.hpp>

#include "relay_process.hpp"
#include "replay_scenario.hpp"
#include "test_database.hpp"
#include "test_kafka.hpp"

using outbox::test::jq;
using outbox::test::Outboxctl;
using outbox::test::RelayTestConfig;
using outbox::test::TestBroker;
using outbox::test::TestDatabase;

TEST_CASE("outboxctl replay sends a window's events again as first published in order",
          "[replay][e2e]") {
  TestDatabase db;
  TestBroker broker(3, 8, {"outbox.order", "outbox.billing"});
  outbox::test::run_replay_scenario(db, broker.bootstrap(), RelayTestConfig{});
}

TEST_CASE("outboxctl replay refuses a window it cannot read and names the flag", "[replay]") {
  TestDatabase db;
  const Outboxctl ctl(db);
  const auto refused = [&](std::vector<std::string> args) {
    args.insert(args.begin(), "replay");
    const auto result = ctl.run(args);
    INFO(result.out << result.err);
    CHECK(result.status == 1);
    CHECK(result.out.empty());
    return result.err;
  };
  CHECK(refused({"--since", "2026-02-30"}) ==
        "outboxctl replay: --since \"2026-02-30\": no such time\n");
  CHECK(refused({"--since", "yesterday"}) ==
        "outboxctl replay: --since \"yesterday\": not a UTC time (2026-12-06, 2026-12-06 10:00, "
        "2026-12-06T10:00:00Z) or a duration before now (90m, 2h, 7d)\n");
  CHECK(refused({"--since", "2026-12-06T10:00:00+01:00"}).find("not a UTC time") !=
        std::string::npos);
  CHECK(refused({"--since", "1h", "--until", "2h"}).find("the window is empty: --since ") !=
        std::string::npos);
  const auto usage = ctl.run({"replay", "--topic", "outbox.order"});
  CHECK(usage.status == 64);
  CHECK(usage.err.find("--since is required") != std::string::npos);
  CHECK(usage.err.find("usage: outboxctl replay --since T") != std::string::npos);

  // No broker at the config's address: refused before anything is read, and said so in JSON.
  db.insert_events(3, "evt", "order", 3);
  db.exec("UPDATE outbox_event SET status = 'PUBLISHED', published_at = CURRENT_TIMESTAMP(6)");
  const auto unreachable = ctl.run({"--json", "replay", "--since", "2h"});
  INFO(unreachable.out << unreachable.err);
  CHECK(unreachable.status == 1);
  CHECK(jq(".error", unreachable.out)
            .find("outboxctl replay: Kafka at 127.0.0.1:9: no Kafka "
                  "broker answered") == 0);
  // A dry run needs no broker.
  const auto dry = ctl.run({"--json", "replay", "--since", "2h", "--dry-run"});
  INFO(dry.out << dry.err);
  CHECK(dry.status == 0);
  CHECK(jq(".would_replay", dry.out) == "3");
}

TEST_CASE("a replay the brokers refuse stops after its chunk and says how to go on",
          "[replay][e2e]") {
  TestDatabase db;
  TestBroker broker(3, 8, {"outbox.order"});
  // Two chunks of two (--batch-size 2), each aggregate's versions stamped out of version order.
  // The second chunk's version 1 is larger than message.max.bytes: the producer refuses it, so
  // its version 2 is not sent either.
  db.exec(
      "INSERT INTO outbox_event (event_id, aggregate_type, aggregate_id, event_type, "
      "event_version, payload, status, created_at, published_at) VALUES "
      "('rpl-1', 'order', 'x', 'T', 2, '{\"n\": 1}', 'PUBLISHED', "
      "CURRENT_TIMESTAMP(6) - INTERVAL 50 MINUTE, CURRENT_TIMESTAMP(6)), "
      "('rpl-2', 'order', 'x', 'T', 1, '{\"n\": 2}', 'PUBLISHED', "
      "CURRENT_TIMESTAMP(6) - INTERVAL 49 MINUTE, CURRENT_TIMESTAMP(6)), "
      "('rpl-3', 'order', 'y', 'T', 2, '{\"n\": 3}', 'PUBLISHED', "
      "CURRENT_TIMESTAMP(6) - INTERVAL 40 MINUTE, CURRENT_TIMESTAMP(6)), "
      "('rpl-4', 'order', 'y', 'T', 1, JSON_OBJECT('pad', REPEAT('x', 5000)), 'PUBLISHED', "
      "CURRENT_TIMESTAMP(6) - INTERVAL 30 MINUTE, CURRENT_TIMESTAMP(6))");
  const std::string second_chunk_since = db.scalar(
      "SELECT DATE_FORMAT(created_at, '%Y-%m-%dT%H:%i:%s.%fZ') FROM outbox_event WHERE "
      "event_id = 'rpl-3'");
  RelayTestConfig settings;
  settings.extra_kafka_properties = "    message.max.bytes: 2000\n";
  outbox::test::TempDir dir;
  const std::string config =
      dir.write("relay.yaml", outbox::test::relay_config_yaml(db, broker.bootstrap(), settings));
  const auto result =
      outbox::test::run_outboxctl(config, {"--json", "replay", "--since", "2h", "--topic",
                                           "outbox.order", "--rate", "0", "--batch-size", "2"});
  INFO(result.out << result.err);
  CHECK(result.status == 1);
  CHECK(jq(".delivered", result.out) == "2");
  CHECK(jq(".failed", result.out) == "2");
  CHECK(jq("[.failed_events[].event_id] | join(\" \")", result.out) == "rpl-4 rpl-3");
  CHECK(jq(".failed_events[0].error | startswith(\"MSG_SIZE_TOO_LARGE\")", result.out) == "true");
  // From the second chunk's earliest created_at (rpl-3's), not from its first row once put in
  // version order (rpl-4): a replay from there sends rpl-3 too.
  CHECK(jq(".resume_with", result.out) == "outboxctl replay --since " + second_chunk_since +
                                              " --until " + jq(".until", result.out) +
                                              " --topic outbox.order --rate 0 --batch-size 2");
  CHECK(
      jq(".error", result.out).find("go on with: outboxctl replay --since " + second_chunk_since) !=
      std::string::npos);
  // kcat: the first chunk only, version 1 before version 2.
  const auto records = outbox::test::read_topic(broker.bootstrap(), "outbox.order");
  REQUIRE(records.size() == 2);
  CHECK(records[0].headers.at("event_id") == "rpl-2");
  CHECK(records[1].headers.at("event_id") == "rpl-1");
}
