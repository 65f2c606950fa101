// Windows 6 and 7: the consumer between its commit and its acknowledgement, and a claim
// (the consumed_event insert) that fails for a reason other than "already consumed". The
// consumer is notification-planner, a process of its own in the consumer group.
#include "daemon_logs.hpp"
#include "seven_windows.hpp"
#include "sql_literal.hpp"

namespace outbox::verify {
namespace {

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = 0; (at = text.find(from, at)) != std::string::npos; at += to.size())
    text.replace(at, from.size(), to);
  return text;
}

// Where the (first) copy of the event sits on the order topic.
std::optional<std::pair<int, long long>> position_of(const Chain& chain,
                                                     const std::string& event_id) {
  const std::vector<std::pair<int, long long>> copies = chain.copies_of(event_id);
  if (copies.empty()) return std::nullopt;
  return copies.front();
}

long long rows_for(const harness::MariadbCli& sql, const std::string& table,
                   const std::string& event_id) {
  std::string where = "event_id = " + sql_literal(event_id);
  if (table == "consumed_event") where += " AND consumer_name = " + sql_literal(kConsumerName);
  return sql.count("SELECT COUNT(*) FROM " + table + " WHERE " + where);
}

std::vector<HandleAttempt> attempts_for(const harness::DaemonProcess& planner,
                                        const std::string& event_id) {
  std::vector<HandleAttempt> found;
  for (HandleAttempt& attempt : planner_attempts(planner.log(), planner.name())) {
    if (attempt.event_id == event_id) found.push_back(std::move(attempt));
  }
  return found;
}

}  // namespace

void SevenWindows::window6(InjectionReport& report) {
  report.forced_by =
      "the consumer process killed (SIGKILL) after its transaction committed, before the offset "
      "commit: failpoint consumer.after_commit_before_ack=kill@1; a new consumer process joins "
      "the group";
  const harness::MariadbCli& sql = chain_.sql();
  const bool forced = fault_forced(6);
  constexpr int64_t kOrder = 6001;
  const size_t traced = trace(report, "6", kOrder);
  drain(planner_, report);
  auto doomed =
      start_planner("planner-6-doomed", forced ? "consumer.after_commit_before_ack=kill@1" : "");
  run_writer("writer-6", WriterOrders::one(kOrder));
  const std::string event = committed_event(kOrder);
  report.orders[traced].event_id = event;
  std::optional<std::pair<int, long long>> copy;
  await("the event on the topic", [&] { return (copy = position_of(chain_, event)).has_value(); });
  const auto [partition, offset] = *copy;
  report.observed["copyOnTopic"] = std::to_string(partition) + "@" + std::to_string(offset);
  if (forced) {
    await("the consumer killed at its failpoint", [&] { return !doomed->process().running(); });
    report.observed["killedConsumerExitStatus"] =
        doomed->process().wait_exit(std::chrono::seconds(0)).value_or(-1);
  } else {
    await("the event applied", [&] { return rows_for(sql, "notification_job", event) == 1; });
  }
  const YAML::Node consumed =
      lookup("6: consumed, offset not committed", {"consumed", kConsumerName, event});
  report.observed["consumedEventRow"] =
      consumed["consumed_at"] ? "consumed_at " + consumed["consumed_at"].as<std::string>()
                              : std::string("none");
  report.expect(consumed["consumed_at"].IsDefined(),
                "the consumer's transaction committed (consumed_event row found by event id)");
  const long long committed = chain_.group_offsets()[partition];
  report.observed["groupCommittedOffsetAfterTheKill"] = committed;
  const bool unacknowledged = committed <= offset;
  report.expect(unacknowledged,
                "the offset of the applied copy was not committed: the broker delivers it again");
  if (unacknowledged) redeliveries_.push_back(UncommittedRedelivery{event, partition, offset});
  planner_ = start_planner("planner-after-6");
  const std::string position = "event " + event + " at " + kOrderTopic + "/" +
                               std::to_string(partition) + "@" + std::to_string(offset) +
                               ": already consumed by " + kConsumerName;
  if (forced) await("the redelivery", [&] { return planner_->logged(position); });
  const bool recognised = planner_->logged(position);
  report.observed["redelivery"] =
      recognised ? position + " (duplicate delivery)" : std::string("none");
  report.expect(recognised, "the redelivered copy was recognised as already consumed");
  // Structured bindings are copied into the lambdas: clang before 16 (clang-tidy's parser here)
  // cannot capture them.
  await("the group's offset past the copy", [&, partition = partition, offset = offset] {
    return chain_.group_offsets()[partition] > offset;
  });
  report.observed["groupCommittedOffsetAfterTheRedelivery"] = chain_.group_offsets()[partition];
  report.observed["consumedEventRows"] = rows_for(sql, "consumed_event", event);
  const auto jobs = rows_for(sql, "notification_job", event);
  report.observed["notificationJobs"] = jobs;
  report.expect(jobs == 1, "one local effect");
  if (!forced) drain(doomed, report);
}

void SevenWindows::window7(InjectionReport& report) {
  report.forced_by =
      "real constraint and data errors on the consumer's claim (INSERT INTO consumed_event), "
      "installed in the database while the consumer runs: 7a a second unique key on "
      "consumed_event.event_id with the event already claimed by another consumer (1062 on "
      "another key: the nearest miss); 7b a foreign key whose name contains "
      "uq_consumed_event_identity (1452); 7c a trigger that copies the claim into a too narrow "
      "column (1406, data too long). Each fault is removed afterwards and the event must then "
      "apply once.";
  const std::vector<ConsumerFault> faults{
      {"7a", "1062 on another unique key",
       "ALTER TABLE consumed_event ADD UNIQUE KEY uq_verify_one_consumer_per_event (event_id);\n"
       "INSERT INTO consumed_event (consumer_name, event_id, consumed_at) VALUES "
       "('verify-other-consumer', @EVENT_ID@, CURRENT_TIMESTAMP(6));",
       "DELETE FROM consumed_event WHERE consumer_name = 'verify-other-consumer';\n"
       "ALTER TABLE consumed_event DROP KEY uq_verify_one_consumer_per_event;",
       true, 1062},
      {"7b", "1452 from a foreign key named like the target constraint",
       "CREATE TABLE verify_claim_allowed (event_id CHAR(36) CHARACTER SET ascii COLLATE "
       "ascii_bin NOT NULL PRIMARY KEY) ENGINE=InnoDB;\n"
       "SET SESSION foreign_key_checks = 0;\n"
       "ALTER TABLE consumed_event ADD CONSTRAINT fk_verify_uq_consumed_event_identity FOREIGN "
       "KEY (event_id) REFERENCES verify_claim_allowed (event_id);",
       "ALTER TABLE consumed_event DROP FOREIGN KEY fk_verify_uq_consumed_event_identity;\n"
       "ALTER TABLE consumed_event DROP INDEX fk_verify_uq_consumed_event_identity;\n"
       "DROP TABLE verify_claim_allowed;",
       false, 1452},
      {"7c", "1406 data too long while claiming",
       "CREATE TABLE verify_claim_audit (note VARCHAR(8) NOT NULL) ENGINE=InnoDB;\n"
       "CREATE TRIGGER verify_claim_audit_trigger BEFORE INSERT ON consumed_event FOR EACH ROW "
       "INSERT INTO verify_claim_audit (note) VALUES (NEW.event_id);",
       "DROP TRIGGER verify_claim_audit_trigger;\nDROP TABLE verify_claim_audit;", false, 1406},
  };
  int64_t order = 7001;
  for (const ConsumerFault& fault : faults)
    consumer_fault_case(report, fault, order++);
}

void SevenWindows::consumer_fault_case(InjectionReport& report, const ConsumerFault& fault,
                                       int64_t order_id) {
  const harness::MariadbCli& sql = chain_.sql();
  const bool forced = fault_forced(7);
  const size_t traced = trace(report, fault.label, order_id);
  YAML::Node observed;
  std::string event;
  if (fault.needs_event_id_first) {
    drain(relay_, report);
    run_writer("writer-" + fault.label, WriterOrders::one(order_id));
    event = committed_event(order_id);
    if (forced) sql.exec(replace_all(fault.install_sql, "@EVENT_ID@", sql_literal(event)));
    (void)relay();
  } else {
    if (forced) sql.exec(fault.install_sql);
    run_writer("writer-" + fault.label, WriterOrders::one(order_id));
    event = committed_event(order_id);
  }
  report.orders[traced].event_id = event;
  std::optional<std::pair<int, long long>> copy;
  await("the event on the topic", [&] { return (copy = position_of(chain_, event)).has_value(); });
  const auto [partition, offset] = *copy;
  if (forced) {
    // The bindings are copied in: clang before 16 cannot capture structured bindings.
    await(fault.label + ": three failed attempts", [&, partition = partition, offset = offset] {
      return planner_->logged("event " + event + " at " + kOrderTopic + "/" +
                              std::to_string(partition) + "@" + std::to_string(offset) +
                              ": attempt 3 failed");
    });
  }
  const std::vector<HandleAttempt> attempts = attempts_for(*planner_, event);
  long long failed = 0;
  long long already = 0;
  std::string error;
  for (const HandleAttempt& attempt : attempts) {
    if (attempt.outcome == HandleOutcome::kFailed) {
      ++failed;
      if (error.empty()) error = attempt.detail;
    }
    if (attempt.outcome == HandleOutcome::kAlreadyConsumed) ++already;
  }
  observed["error"] = error;
  observed["failedAttempts"] = failed;
  observed["classifiedAlreadyConsumed"] = already;
  const long long committed = chain_.group_offsets()[partition];
  observed["copyOnTopic"] = std::to_string(partition) + "@" + std::to_string(offset);
  observed["groupCommittedOffset"] = committed;
  observed["acknowledged"] = committed > offset;
  const auto consumed_rows = rows_for(sql, "consumed_event", event);
  const auto jobs = rows_for(sql, "notification_job", event);
  observed["consumedEventRows"] = consumed_rows;
  observed["notificationJobs"] = jobs;
  const YAML::Node lookup_answer =
      lookup("7: published, consumer failing", {"consumed", kConsumerName, event});
  observed["lookupByEventId"] =
      lookup_answer["error"] ? lookup_answer["error"].as<std::string>() : "consumed";
  const std::string code = "MySQL error " + std::to_string(fault.error_code) + " ";
  report.expect(failed >= 3 && error.find("INSERT INTO consumed_event: " + code) == 0,
                fault.label + ": the claim failed with " + code + "(and kept failing)");
  report.expect(already == 0, fault.label + ": never classified as already consumed");
  report.expect(committed <= offset, fault.label + ": not acknowledged");
  report.expect(consumed_rows == 0 && jobs == 0,
                fault.label + ": no dedupe row and no effect while it fails");
  if (forced) sql.exec(fault.remove_sql);
  await(fault.label + ": the event applied once the fault is gone",
        [&] { return rows_for(sql, "notification_job", event) == 1; });
  observed["afterTheFaultWasRemoved"] =
      "applied: consumed_event " + std::to_string(rows_for(sql, "consumed_event", event)) +
      ", notification_job " + std::to_string(rows_for(sql, "notification_job", event));
  report.observed[fault.label + " " + fault.what] = observed;
}

}  // namespace outbox::verify
