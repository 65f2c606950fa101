// One W3C trace id followed from the writer to the consumer: OrderWriter::submit() stores the
// request's traceparent with the order's event, outbox-relay sends it as the traceparent header
// (read with kcat), notification-planner logs the trace id with the event and records it in
// notification_job.trace_id (read with the mariadb CLI).
#include <catch2/catch.hpp>

#include <iostream>
#include <variant>

#include "message_scenarios.hpp"
#include "order_writer.hpp"
#include "planner_process.hpp"
#include "planner_scenarios.hpp"
#include "poll.hpp"
#include "relay_process.hpp"
#include "test_database.hpp"
#include "test_kafka.hpp"

using outbox::test::eventually;
using outbox::test::TestBroker;
using outbox::test::TestDatabase;

TEST_CASE("one trace id travels from submit() through the relay to the consumer",
          "[planner][trace]") {
  const std::string trace_id = "0af7651916cd43dd8448eb211c80319c";
  const std::string traceparent = "00-" + trace_id + "-b7ad6b7169203331-01";
  TestDatabase db;
  outbox::init_mysql_driver();
  outbox::writer::OrderWriter writer(db.endpoint());
  outbox::writer::OrderSubmission traced;
  traced.tenant_id = 3;
  traced.request_id = "req-trace-1";
  traced.order_id = 4242;
  traced.event_id = outbox::test::event_id("trace", 1);
  traced.payload = "{\"order_id\": 4242, \"version\": 1}";
  traced.trace = {traceparent, "vendor=opaque-1"};
  outbox::writer::OrderSubmission untraced = traced;
  untraced.request_id = "req-trace-2";
  untraced.order_id = 4243;
  untraced.event_id = outbox::test::event_id("trace", 2);
  untraced.payload = "{\"order_id\": 4243, \"version\": 1}";
  untraced.trace = {};
  for (const auto* order : {&traced, &untraced}) {
    const auto result = writer.submit(*order);
    INFO(outbox::writer::describe(result));
    REQUIRE(std::holds_alternative<outbox::writer::Committed>(result));
  }

  TestBroker broker(3, 4, {outbox::test::kOrderTopic, outbox::test::kOrderDeadLetterTopic});
  outbox::test::PlannerProcess planner(db, broker.bootstrap(), outbox::test::PlannerTestConfig{});
  outbox::test::RelayProcess relay(db, broker.bootstrap(), outbox::test::RelayTestConfig{});
  REQUIRE(eventually([&] { return db.scalar("SELECT COUNT(*) FROM notification_job") == "2"; }));
  outbox::test::stop_gracefully(relay);
  planner.stop_gracefully();

  // On Kafka: the header exactly as submitted.
  const auto records =
      outbox::harness::read_topic_exact(broker.bootstrap(), outbox::test::kOrderTopic);
  REQUIRE(records.size() == 2);
  for (const auto& record : records) {
    if (record.header("event_id") == traced.event_id) {
      CHECK(record.header("traceparent") == traceparent);
      CHECK(record.header("tracestate") == "vendor=opaque-1");
      std::cout << "[kcat] trace from submit(): "
                << outbox::test::describe_record(outbox::test::kOrderTopic, record) << "\n";
    } else {
      CHECK_FALSE(record.header("traceparent"));
    }
  }
  // In the consumer: its log line names the trace; its effect records it.
  CHECK(planner.count("event " + traced.event_id + " at ") >= 1);
  CHECK(planner.log().find(" (trace " + trace_id + "): applied, acknowledged") !=
        std::string::npos);
  CHECK(db.query("SELECT event_id, COALESCE(trace_id, '-') FROM notification_job ORDER BY "
                 "order_id") ==
        outbox::test::Rows{{traced.event_id, trace_id}, {untraced.event_id, "-"}});
  CHECK(db.scalar("SELECT traceparent FROM outbox_event WHERE event_id = '" + traced.event_id +
                  "'") == traceparent);
}
