// Windows 3, 4 and 5: the relay between the commit and the mark. Relays are outbox-relay
// processes; the broker is the mock or the real cluster (--kafka); every state is read back by
// its stable id.
#include <signal.h>  // NOLINT(modernize-deprecated-headers): POSIX kill

#include "seven_windows.hpp"
#include "sql_literal.hpp"

namespace outbox::verify {
namespace {

std::string scalar_or_empty(const harness::MariadbCli& sql, const std::string& query) {
  const harness::Rows rows = sql.query(query);
  return rows.size() == 1 && !rows[0].empty() ? rows[0][0] : "";
}

std::string event_column(const harness::MariadbCli& sql, const std::string& event_id,
                         const std::string& column) {
  return scalar_or_empty(
      sql, "SELECT " + column + " FROM outbox_event WHERE event_id = " + sql_literal(event_id));
}

// Copies of the event on the order topic, as "partition@offset", read with kcat.
std::vector<std::string> copies_on_topic(const Chain& chain, const std::string& event_id) {
  std::vector<std::string> copies;
  for (const auto& [partition, offset] : chain.copies_of(event_id))
    copies.push_back(std::to_string(partition) + "@" + std::to_string(offset));
  return copies;
}

YAML::Node sequence_of(const std::vector<std::string>& items) {
  YAML::Node node(YAML::NodeType::Sequence);
  for (const std::string& item : items)
    node.push_back(item);
  return node;
}

// The subset of `outboxctl event` that shows who holds the event.
YAML::Node lease_view(const YAML::Node& event) {
  YAML::Node view;
  for (const char* key : {"status", "lease_owner", "lease_state", "published_by"}) {
    view[key] = event[key] ? event[key] : YAML::Node("-");
  }
  return view;
}

}  // namespace

void SevenWindows::window3(InjectionReport& report) {
  report.forced_by =
      "kill -9 of the only relay; the order commits while no relay runs; a new relay starts";
  const harness::MariadbCli& sql = chain_.sql();
  constexpr int64_t kOrder = 3001;
  const size_t traced = trace(report, "3", kOrder);
  if (fault_forced(3)) {
    report.observed["relayKilledExitStatus"] = relay_->kill_now();
    relay_.reset();
  }
  run_writer("writer-3", WriterOrders::one(kOrder));
  const std::string event = committed_event(kOrder);
  report.orders[traced].event_id = event;
  report.expect(!event.empty(), "the order committed");
  const YAML::Node pending = lookup("3: PENDING, no relay", {"event", event});
  report.observed["whileNoRelayRuns"] = lease_view(pending);
  report.expect(pending["status"] && pending["status"].as<std::string>() == "PENDING",
                "the committed event waits as PENDING, found by its event_id");
  const YAML::Node backlog = lookup("3: backlog", {"backlog"});
  report.observed["backlogPending"] = backlog["by_status"]["PENDING"];
  report.expect(backlog["by_status"]["PENDING"].as<long long>(0) >= 1,
                "outboxctl backlog counts it as PENDING");
  if (!relay_) relay_ = start_relay("relay-after-3", window_relay("verify-relay"));
  await("the event PUBLISHED by the new relay",
        [&] { return event_column(sql, event, "status") == "PUBLISHED"; });
  report.observed["publishedBy"] = event_column(sql, event, "published_by");
  await("the consumer's effect", [&] {
    return sql.count("SELECT COUNT(*) FROM notification_job WHERE event_id = " +
                     sql_literal(event)) == 1;
  });
  report.observed["copiesOnTopic"] = sequence_of(copies_on_topic(chain_, event));
  report.observed["notificationJobs"] = 1;
}

void SevenWindows::window4(InjectionReport& report) {
  report.forced_by =
      "the relay process killed (SIGKILL) after the broker confirmed, before the mark: failpoint "
      "relay.after_publish_before_mark=kill@1 (no outside fault can be timed into a window of "
      "microseconds); the next relay takes the row over when the dead one's lease ends";
  const harness::MariadbCli& sql = chain_.sql();
  constexpr int64_t kOrder = 4001;
  const size_t traced = trace(report, "4", kOrder);
  drain(relay_, report);
  // The shortest lease the relay accepts (10 s, and it must exceed the delivery timeout by 5 s).
  harness::RelayConfigSettings doomed_settings = window_relay("verify-w4-doomed");
  doomed_settings.lease = "10s";
  doomed_settings.extra_kafka_properties = "    message.timeout.ms: 5000\n";
  auto doomed = start_relay("relay-4-doomed", doomed_settings,
                            fault_forced(4) ? "relay.after_publish_before_mark=kill@1" : "");
  run_writer("writer-4", WriterOrders::one(kOrder));
  const std::string event = committed_event(kOrder);
  report.orders[traced].event_id = event;
  if (fault_forced(4)) {
    await("the relay killed at its failpoint", [&] { return !doomed->process().running(); });
    report.observed["killedRelayExitStatus"] =
        doomed->process().wait_exit(std::chrono::seconds(0)).value_or(-1);
    const YAML::Node unmarked = lookup("4: PUBLISHING, owner dead", {"event", event});
    report.observed["afterTheKill"] = lease_view(unmarked);
    report.expect(unmarked["status"] && unmarked["status"].as<std::string>() == "PUBLISHING",
                  "confirmed but unmarked: the row stays PUBLISHING under the dead relay's lease");
    report.observed["copiesOnTopicAfterTheKill"] = sequence_of(copies_on_topic(chain_, event));
  } else {
    await("the event PUBLISHED", [&] { return event_column(sql, event, "status") == "PUBLISHED"; });
  }
  const std::string first_owner = event_column(sql, event, "COALESCE(lease_owner, published_by)");
  relay_ = start_relay("relay-4-next", window_relay("verify-w4-next"));
  await("the event PUBLISHED", [&] { return event_column(sql, event, "status") == "PUBLISHED"; });
  const std::string published_by = event_column(sql, event, "published_by");
  report.observed["publishedBy"] = published_by;
  const bool taken_over = relay_->logged(" expired leases: " + event + " (was " + first_owner);
  report.observed["takeOverLogged"] = taken_over;
  report.expect(taken_over && published_by.rfind("verify-w4-next", 0) == 0,
                "the next relay took the row over after the lease ended and published it");
  report.expect(first_owner.rfind("verify-w4-doomed", 0) == 0,
                "the first publish was the killed relay's claim " + first_owner);
  report.observed["firstClaim"] = first_owner;
  doomed.reset();
}

void SevenWindows::window5(InjectionReport& report) {
  report.forced_by =
      "the old relay stalls mid-publish (SIGSTOP while the broker's answers are delayed by 3 s: "
      "the mock's rtt, or on a real cluster the proxy in front of each node), its "
      "lease runs out (lease_until moved to now: the expiry without the wait), a new relay "
      "reclaims and publishes the row, then the old relay resumes (SIGCONT) with the broker's "
      "confirmation in hand and tries to mark";
  const harness::MariadbCli& sql = chain_.sql();
  constexpr int64_t kOrder = 5001;
  const size_t traced = trace(report, "5", kOrder);
  drain(relay_, report);
  // A long lease and delivery timeout: the old relay must still hold a valid confirmation when
  // it resumes, only its lease is gone.
  auto old_relay = start_relay("relay-5-old", window_relay("verify-w5-old"));
  const bool forced = fault_forced(5);
  if (forced) chain_.broker().delay_replies(3000);
  run_writer("writer-5", WriterOrders::one(kOrder));
  const std::string event = committed_event(kOrder);
  report.orders[traced].event_id = event;
  std::string old_claim;
  await("the old relay's claim", [&] {
    old_claim = event_column(sql, event, "COALESCE(lease_owner, published_by)");
    return !old_claim.empty();
  });
  report.observed["oldClaim"] = old_claim;
  if (forced) {
    old_relay->process().signal(SIGSTOP);
    chain_.broker().delay_replies(0);
    const YAML::Node stalled = lookup("5: PUBLISHING, owner stalled", {"event", event});
    report.observed["whileTheOldRelayStalls"] = lease_view(stalled);
    report.expect(stalled["status"] && stalled["status"].as<std::string>() == "PUBLISHING",
                  "the stalled relay still holds the row (PUBLISHING)");
    const std::string expired = sql.scalar(
        "UPDATE outbox_event SET lease_until = CURRENT_TIMESTAMP(6), next_attempt_at = "
        "CURRENT_TIMESTAMP(6) WHERE event_id = " +
        sql_literal(event) + " AND status = 'PUBLISHING' AND lease_owner = " +
        sql_literal(old_claim) + ";\nSELECT ROW_COUNT()");
    report.observed["leaseExpiredRows"] = std::stoll(expired);
  }
  relay_ = start_relay("relay-5-new", window_relay("verify-w5-new"));
  await("the row PUBLISHED", [&] { return event_column(sql, event, "status") == "PUBLISHED"; });
  const std::string new_claim = event_column(sql, event, "published_by");
  report.observed["newClaim"] = new_claim;
  report.expect(new_claim.rfind("verify-w5-new", 0) == 0,
                "the new relay reclaimed the expired lease and marked the row");
  const std::string refused =
      "event " + event + ": delivered, but claim " + old_claim + " no longer holds its lease";
  if (forced) {
    old_relay->process().signal(SIGCONT);
    await("the old relay's late mark", [&] { return old_relay->logged(refused); });
  }
  const bool late_mark_refused = old_relay->logged(refused);
  report.observed["lateMarkRefused"] = late_mark_refused
                                           ? refused + " (the conditional UPDATE changed 0 rows)"
                                           : std::string("not logged");
  report.expect(late_mark_refused,
                "the late worker's mark changed no row and was logged with the event id");
  const YAML::Node final_state = lookup("5: PUBLISHED by the new owner", {"event", event});
  report.observed["afterTheLateMark"] = lease_view(final_state);
  report.expect(
      final_state["published_by"] && final_state["published_by"].as<std::string>() == new_claim,
      "the new owner's state stands");
  drain(old_relay, report);
}

}  // namespace outbox::verify
