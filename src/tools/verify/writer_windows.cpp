// Windows 1 and 2: the order transaction, killed before its commit and answered with an error
// after it. The writer is outbox-loadgen (the writer library's order service) as a process of
// its own; the verifier only watches the database and the writer's output.
#include <signal.h>  // NOLINT(modernize-deprecated-headers): POSIX kill

#include "harness/tcp_proxy.hpp"
#include "seven_windows.hpp"
#include "sql_literal.hpp"
#include "writer_evidence.hpp"

namespace outbox::verify {
namespace {

constexpr int kRowsOfOneOrder = 2;  // the order row and its outbox_event row

long long orders_for(const harness::MariadbCli& sql, int64_t order_id) {
  return sql.count("SELECT COUNT(*) FROM orders WHERE tenant_id = " + std::to_string(kTenant) +
                   " AND request_id = " + sql_literal(request_id(order_id)));
}

long long events_for(const harness::MariadbCli& sql, int64_t order_id) {
  return sql.count(
      "SELECT COUNT(*) FROM outbox_event WHERE aggregate_type = 'order' AND aggregate_id = " +
      sql_literal(std::to_string(order_id)));
}

}  // namespace

void SevenWindows::window1(InjectionReport& report) {
  report.forced_by =
      "1a: kill -9 of the writer process (outbox-loadgen) while its transaction holds the order "
      "and its event uncommitted; 1b: KILL CONNECTION of the writer's session at the same "
      "point. Failpoint writer.before_commit=sleep only holds the writer there until the outside "
      "fault lands.";
  const harness::MariadbCli& sql = chain_.sql();
  const std::string& database = chain_.setup().database;
  const bool forced = fault_forced(1);

  // 1a: the writer process dies with its transaction open.
  {
    constexpr int64_t kOrder = 1001;
    const size_t traced = trace(report, "1a", kOrder);
    YAML::Node observed;
    auto writer = start_writer("writer-1a", WriterOrders::one(kOrder),
                               forced ? "writer.before_commit=sleep:60000@1" : "");
    if (forced) {
      std::optional<std::string> session;
      await("writer 1a waiting at its commit with both rows written", [&] {
        return (session = session_waiting_at_commit(sql, database, kRowsOfOneOrder)).has_value();
      });
      const DirtyOrder before = dirty_read_order(sql, kTenant, kOrder);
      observed["uncommittedBeforeTheFault"]["orderRows"] = before.orders;
      observed["uncommittedBeforeTheFault"]["eventId"] = before.event_id;
      report.expect(before.orders == 1 && !before.event_id.empty(),
                    "1a: the writer's open transaction holds the order and its event");
      writer->signal(SIGKILL);
      observed["writerExitStatus"] = writer->wait_exit(std::chrono::seconds(30)).value_or(-1);
      await("the server to roll the dead writer's transaction back", [&] {
        return sql.count("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = " +
                         *session) == 0;
      });
    } else {
      observed["writerExitStatus"] = writer->wait_exit(std::chrono::seconds(60)).value_or(-1);
    }
    const long long orders = orders_for(sql, kOrder);
    const long long events = events_for(sql, kOrder);
    observed["ordersAfterTheFault"] = orders;
    observed["outboxEventsAfterTheFault"] = events;
    report.expect(orders == 0 && events == 0,
                  "1a: after the writer died before its commit, order and event are both absent");
    const YAML::Node lookup_answer =
        lookup("1a: an order that never committed", {"order", "1", request_id(kOrder)});
    observed["lookupByRequestId"] =
        lookup_answer["error"] ? lookup_answer["error"].as<std::string>() : "found";
    // The writer's restart: the request is absent for certain, so it is submitted again.
    const std::string log = run_writer("writer-1a-restarted", WriterOrders::one(kOrder));
    const std::optional<WriterSummary> summary = writer_summary(log);
    if (summary) observed["restartedWriter"] = summary_yaml(*summary);
    report.expect(summary && summary->done, "1a: the restarted writer accepts the order");
    report.orders[traced].event_id = committed_event(kOrder);
    const long long orders_after = orders_for(sql, kOrder);
    const long long events_after = events_for(sql, kOrder);
    observed["ordersAfterRestart"] = orders_after;
    observed["outboxEventsAfterRestart"] = events_after;
    report.expect(orders_after == 1 && events_after == 1,
                  "1a: after the restart exactly one order and one event");
    report.observed["1a writer killed"] = observed;
  }

  // 1b: the writer's connection is killed: the COMMIT fails, the outcome is unknown.
  {
    constexpr int64_t kOrder = 1002;
    const size_t traced = trace(report, "1b", kOrder);
    YAML::Node observed;
    auto writer = start_writer("writer-1b", WriterOrders::one(kOrder),
                               forced ? "writer.before_commit=sleep:5000@1" : "");
    std::string event_before;
    if (forced) {
      std::optional<std::string> session;
      await("writer 1b waiting at its commit with both rows written", [&] {
        return (session = session_waiting_at_commit(sql, database, kRowsOfOneOrder)).has_value();
      });
      event_before = dirty_read_order(sql, kTenant, kOrder).event_id;
      observed["uncommittedEventId"] = event_before;
      sql.exec("KILL CONNECTION " + *session);
      observed["killedConnection"] = *session;
    }
    const std::optional<int> status = writer->wait_exit(std::chrono::seconds(120));
    const std::string log = writer->output();
    observed["writerExitStatus"] = status.value_or(-1);
    const std::optional<UnknownCommit> unknown = unknown_commit(log);
    observed["writerOutcome"] =
        unknown ? "commit outcome unknown: " + unknown->error : std::string("no unknown outcome");
    const std::optional<WriterSummary> summary = writer_summary(log);
    if (summary) observed["writerSummary"] = summary_yaml(*summary);
    report.expect(unknown.has_value(), "1b: the killed connection makes the commit UNKNOWN");
    report.expect(summary && summary->unknown == 1 && summary->reconciled_absent == 1 &&
                      summary->reconciled_found == 0 && summary->committed == 1,
                  "1b: UNKNOWN reconciled by request id: absent on the primary, then resubmitted "
                  "once with the same ids");
    const std::string stored = committed_event(kOrder);
    report.orders[traced].event_id = stored;
    const long long orders = orders_for(sql, kOrder);
    const long long events = events_for(sql, kOrder);
    observed["ordersForRequestId"] = orders;
    observed["outboxEventsForOrder"] = events;
    observed["storedAcceptanceEventId"] = stored;
    const bool same_ids = unknown && stored == unknown->event_id && stored == event_before;
    observed["sameEventIdAcrossTheResubmission"] = same_ids;
    report.expect(orders == 1 && events == 1, "1b: exactly one order and one event");
    report.expect(same_ids, "1b: the resubmission reused the stable event id");
    report.observed["1b connection killed"] = observed;
  }
}

void SevenWindows::window2(InjectionReport& report) {
  report.forced_by =
      "the COMMIT's answer lost on the wire: a TCP proxy between the writer and MariaDB drops the "
      "server's reply to the COMMIT (the server committed) and closes the connection. Failpoint "
      "writer.before_commit=sleep holds the writer at the commit so the loss hits that reply.";
  const harness::MariadbCli& sql = chain_.sql();
  constexpr int64_t kOrder = 2001;
  const size_t traced = trace(report, "2", kOrder);
  const MysqlEndpoint server = chain_.database_endpoint();
  harness::TcpProxy proxy(server.host, server.port);
  WriterOrders orders = WriterOrders::one(kOrder);
  orders.port = proxy.port();
  auto writer =
      start_writer("writer-2", orders, fault_forced(2) ? "writer.before_commit=sleep:5000@1" : "");
  std::string event_before;
  if (fault_forced(2)) {
    await("writer 2 waiting at its commit with both rows written", [&] {
      return session_waiting_at_commit(sql, chain_.setup().database, kRowsOfOneOrder).has_value();
    });
    event_before = dirty_read_order(sql, kTenant, kOrder).event_id;
    report.observed["uncommittedEventId"] = event_before;
    proxy.lose_next_reply();
  }
  const std::optional<int> status = writer->wait_exit(std::chrono::seconds(120));
  const std::string log = writer->output();
  report.observed["repliesLostOnTheWire"] = proxy.replies_lost();
  report.observed["writerExitStatus"] = status.value_or(-1);
  const std::optional<UnknownCommit> unknown = unknown_commit(log);
  report.observed["writerOutcome"] =
      unknown ? "commit outcome unknown: " + unknown->error : std::string("no unknown outcome");
  const std::optional<WriterSummary> summary = writer_summary(log);
  if (summary) report.observed["writerSummary"] = summary_yaml(*summary);
  report.expect(unknown.has_value(), "the lost reply makes the commit UNKNOWN");
  report.expect(summary && summary->unknown == 1 && summary->reconciled_found == 1,
                "UNKNOWN reconciled by request id on the primary: found committed");
  report.expect(summary && summary->committed == 0 && summary->already_accepted == 0 &&
                    summary->reconciled_absent == 0,
                "no blind replay: the writer did not submit the order again");
  const std::string stored = committed_event(kOrder);
  report.orders[traced].event_id = stored;
  const long long orders_stored = orders_for(sql, kOrder);
  report.observed["ordersForRequestId"] = orders_stored;
  const long long events_stored = events_for(sql, kOrder);
  report.observed["outboxEventsForOrder"] = events_stored;
  report.observed["storedAcceptanceEventId"] = stored;
  const bool same_ids = unknown && stored == unknown->event_id && stored == event_before;
  report.observed["reconciledEventIdIsTheOneSent"] = same_ids;
  report.expect(orders_stored == 1 && events_stored == 1, "exactly one order and one event");
  report.expect(same_ids, "the reconciled ids are the ones the writer sent");
  const YAML::Node answer =
      lookup("2: an order whose commit answer was lost", {"order", "1", request_id(kOrder)});
  report.observed["lookupByRequestId"] =
      answer["order"] ? "order " + answer["order"]["id"].as<std::string>() + ", event " +
                            answer["order"]["acceptance_event_id"].as<std::string>()
                      : std::string("not found");
}

}  // namespace outbox::verify
