// The operator's pause, end to end (operator_pause_scenario.hpp). Read back with kcat
// (read_topic) and checked in the table with the database's own CLI.
#include "operator_pause_scenario.hpp"

#include <catch2/catch.hpp>

#include <csignal>
#include <optional>

#include "http_scrape.hpp"
#include "poll.hpp"
#include "sick_partitions.hpp"
#include "test_kafka.hpp"

namespace outbox::test {
namespace {

// A billing row held by the scenario's pause.
constexpr const char* kHeldByBillingPause =
    "status = 'RETRY' AND next_attempt_at IS NULL AND attempts = 0 AND last_error LIKE "
    "'paused by operator: topic outbox.billing: billing consumers corrupt data (paused by %'";

}  // namespace

double operator_paused_gauge(const RelayProcess& relay, const std::string& kind,
                             const std::string& name) {
  return metric_sample(http_get(relay.metrics_port(), "/metrics").body,
                       "outbox_relay_operator_paused{kind=\"" + kind + "\",name=\"" + name + "\"}");
}

void run_operator_pause_scenario(
    const TestDatabase& db, const std::string& bootstrap,
    const std::function<RelayTestConfig(const std::string& name)>& relay_settings) {
  using namespace std::chrono_literals;
  const Outboxctl ctl(db);
  const auto paused =
      ctl.run({"--json", "pause", "outbox.billing", "--reason", "billing consumers corrupt data"});
  INFO(paused.out << paused.err);
  REQUIRE(paused.status == 0);
  CHECK(jq(".paused.kind + \" \" + .paused.name", paused.out) == "topic outbox.billing");
  CHECK(jq(".already_paused", paused.out) == "false");
  CHECK(jq(".paused.paused_by | test(\" as \")", paused.out) == "true");
  const auto again = ctl.run({"pause", "outbox.billing", "--reason", "another reason"});
  CHECK(again.status == 0);
  CHECK(again.out.find("already_paused: true") != std::string::npos);
  CHECK(again.out.find("billing consumers corrupt data") != std::string::npos);  // kept

  // 30 aggregates x 10 versions of each type, billing's interleaved with order's.
  const std::string base = created_base(db);
  const TypedEvents billing{"bill", "billing", 30, 10, 2, 0};
  const TypedEvents order{"ord", "order", 30, 10, 2, 1};
  insert_typed_events(db, billing, base);
  insert_typed_events(db, order, base);
  std::optional<RelayProcess> first(std::in_place, db, bootstrap, relay_settings("a"));
  RelayProcess second(db, bootstrap, relay_settings("b"));
  REQUIRE(eventually(
      [&] { return db.count("aggregate_type = 'order' AND status = 'PUBLISHED'") == 300; }));
  // Every billing event waits: the heads held, the versions behind them parked.
  if (!eventually([&] {
        return db.count(std::string("aggregate_type = 'billing' AND (") + kHeldByBillingPause +
                        " OR status = 'BLOCKED')") == 300;
      })) {
    FAIL("billing rows not all held; by status: "
         << db.scalar("SELECT GROUP_CONCAT(CONCAT(status, ' ', n)) FROM (SELECT status, COUNT(*) "
                      "n FROM outbox_event WHERE aggregate_type = 'billing' GROUP BY status) s")
         << "\n"
         << first->log());
  }
  const long long held =
      db.count(std::string("aggregate_type = 'billing' AND ") + kHeldByBillingPause);
  CHECK(held >= 30);  // at least each aggregate's head
  CHECK(db.count("aggregate_type = 'billing' AND attempts > 0") == 0);
  for (const RelayProcess* relay : {&*first, &second}) {
    CHECK(operator_paused_gauge(*relay, "topic", "outbox.billing") == 1);
    CHECK(logged(*relay, "topic outbox.billing paused by operator: its events are held"));
  }
  CHECK(read_topic(bootstrap, "outbox.billing").empty());

  const auto listed = ctl.run({"--json", "paused"});
  INFO(listed.out << listed.err);
  REQUIRE(listed.status == 0);
  CHECK(jq(".pauses | length", listed.out) == "1");
  CHECK(jq(".pauses[0].reason", listed.out) == "billing consumers corrupt data");
  CHECK(jq(".pauses[0].held_events", listed.out) == std::to_string(held));
  CHECK(jq(".held_for_ended_pauses", listed.out) == "0");
  const auto backlog = ctl.run({"--json", "backlog"});
  CHECK(jq(".operator_pauses.pauses[0].name", backlog.out) == "outbox.billing");

  // kill -9 one relay, write more of both, start a new one: the pause holds across it.
  first->process().signal(SIGKILL);
  first->process().wait_exit(10s);
  first.reset();
  TypedEvents late_billing = billing;
  late_billing.first_version = late_billing.versions = 11;
  TypedEvents late_order = order;
  late_order.first_version = late_order.versions = 11;
  insert_typed_events(db, late_billing, base);
  insert_typed_events(db, late_order, base);
  RelayProcess third(db, bootstrap, relay_settings("c"));
  REQUIRE(eventually(
      [&] { return db.count("aggregate_type = 'order' AND status = 'PUBLISHED'") == 330; }));
  REQUIRE(eventually([&] { return logged(third, "topic outbox.billing paused by operator"); }));
  CHECK(db.count("aggregate_type = 'billing' AND status = 'PUBLISHED'") == 0);
  CHECK(read_topic(bootstrap, "outbox.billing").empty());

  const auto resumed = ctl.run({"--json", "resume", "outbox.billing"});
  INFO(resumed.out << resumed.err);
  REQUIRE(resumed.status == 0);
  CHECK(jq(".was_paused", resumed.out) == "true");
  REQUIRE(eventually(
      [&] { return db.count("aggregate_type = 'billing' AND status = 'PUBLISHED'") == 330; }));
  for (const RelayProcess* relay : {&second, &third}) {
    REQUIRE(
        eventually([&] { return operator_paused_gauge(*relay, "topic", "outbox.billing") == 0; }));
    CHECK(logged(*relay, "topic outbox.billing resumed by operator"));
  }
  CHECK(db.count("aggregate_type = 'billing' AND attempts > 0") == 0);
  // Each aggregate's versions 1..11 reached the topic in order (a duplicate after the kill -9
  // is allowed, a gap or an inversion is not), read back by kcat.
  TypedEvents all_billing = billing;
  all_billing.versions = 11;
  check_topic_complete_in_order(db, bootstrap, all_billing);
  const auto none = ctl.run({"--json", "paused"});
  CHECK(jq(".pauses | length", none.out) == "0");
  stop_gracefully(second);
  stop_gracefully(third);
}

}  // namespace outbox::test
