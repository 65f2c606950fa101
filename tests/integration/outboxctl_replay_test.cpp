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
