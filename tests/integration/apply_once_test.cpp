// The consumer's transaction (apply_once) against a real MariaDB: the dedupe row and the
// effect commit together, a redelivery is recognised by uq_consumed_event_identity only, and
// every near miss the real server produces is a failure with nothing committed.
#include <catch2/catch.hpp>

#include <future>

#include "apply_once.hpp"
#include "failpoint.hpp"
#include "notification_job_handler.hpp"
#include "poll.hpp"
#include "test_database.hpp"
#include "test_session.hpp"

using outbox::MysqlSession;
using outbox::consumer::apply_once;
using outbox::consumer::ApplyOutcome;
using outbox::consumer::ApplyVerdict;
using outbox::consumer::EffectResult;
using outbox::consumer::EventHandler;
using outbox::consumer::ReceivedEvent;
using outbox::test::connection_id;
using outbox::test::eventually;
using outbox::test::open_session;
using outbox::test::TestDatabase;

namespace {

constexpr const char* kPlanner = "notification-planner";

ReceivedEvent order_accepted(int n, const std::string& payload = "") {
  ReceivedEvent event;
  event.event_id = outbox::test::event_id("c", n);
  event.topic = "outbox.order";
  event.partition = 0;
  event.offset = n;
  event.key = std::to_string(n);
  event.payload =
      payload.empty() ? "{\"order_id\": " + std::to_string(n) + ", \"version\": 3}" : payload;
  event.headers = {{"event_id", event.event_id}, {"event_type", "ORDER_ACCEPTED"}};
  return event;
}

// plan_notification, counting its calls.
EventHandler counted_planner(int& calls) {
  return [&calls](MysqlSession& session, const ReceivedEvent& event) {
    ++calls;
    return outbox::planner::plan_notification(session, event);
  };
}

std::string consumed(const TestDatabase& db, const ReceivedEvent& event) {
  return db.scalar("SELECT COUNT(*) FROM consumed_event WHERE event_id = '" + event.event_id + "'");
}

}  // namespace

TEST_CASE("apply_once commits the dedupe row with the effect, a redelivery is already consumed",
          "[apply-once]") {
  TestDatabase db;
  auto session = open_session(db);
  int calls = 0;
  const ReceivedEvent event = order_accepted(1);

  const ApplyOutcome first = apply_once(*session, kPlanner, event, counted_planner(calls));
  INFO(first.detail);
  REQUIRE(first.verdict == ApplyVerdict::kApplied);
  CHECK(db.query("SELECT consumer_name, ABS(TIMESTAMPDIFF(SECOND, consumed_at, "
                 "CURRENT_TIMESTAMP(6))) < 60 FROM consumed_event WHERE event_id = '" +
                 event.event_id + "'") == outbox::test::Rows{{kPlanner, "1"}});
  CHECK(db.query("SELECT order_id, source_version, status FROM notification_job WHERE "
                 "event_id = '" +
                 event.event_id + "'") == outbox::test::Rows{{"1", "3", "PENDING"}});

  const ApplyOutcome again = apply_once(*session, kPlanner, event, counted_planner(calls));
  CHECK(again.verdict == ApplyVerdict::kAlreadyConsumed);
  CHECK(again.detail.find("MySQL error 1062") != std::string::npos);
  CHECK(again.detail.find(db.duplicate_key("consumed_event", "uq_consumed_event_identity")) !=
        std::string::npos);
  CHECK_FALSE(again.session_lost);
  CHECK(calls == 1);  // the effect ran once
  CHECK(db.scalar("SELECT COUNT(*) FROM notification_job") == "1");

  // Another consumer (another consumer_name) takes its own effect once.
  const EventHandler no_effect = [](MysqlSession&, const ReceivedEvent&) {
    return EffectResult::applied();
  };
  CHECK(apply_once(*session, "order-report", event, no_effect).verdict == ApplyVerdict::kApplied);
  CHECK(apply_once(*session, "order-report", event, no_effect).verdict ==
        ApplyVerdict::kAlreadyConsumed);
  CHECK(consumed(db, event) == "2");
}

TEST_CASE("near misses from the real server are failures with nothing committed",
          "[apply-once][classifier]") {
  TestDatabase db;
  auto session = open_session(db);
  int calls = 0;
  ReceivedEvent event = order_accepted(2);
  std::string consumer = kPlanner;
  std::string expected;

  SECTION("1062 on another unique key of consumed_event") {
    db.exec("ALTER TABLE consumed_event ADD UNIQUE KEY uq_consumed_event_once (event_id)");
    REQUIRE(apply_once(*session, "order-report", event, [](MysqlSession&, const ReceivedEvent&) {
              return EffectResult::applied();
            }).verdict == ApplyVerdict::kApplied);
    expected = "MySQL error 1062 (23000): Duplicate entry '" + event.event_id + "' for key " +
               db.duplicate_key("consumed_event", "uq_consumed_event_once");
  }
  SECTION("a foreign key error (1452) whose text names the constraint") {
    db.exec(
        "ALTER TABLE consumed_event ADD CONSTRAINT uq_consumed_event_identity_fk FOREIGN KEY "
        "(event_id) REFERENCES outbox_event (event_id)");
    expected = "MySQL error 1452 (23000)";
  }
  SECTION("truncation (1406): a consumer name longer than the column") {
    consumer = std::string(129, 'n');
    expected = "MySQL error 1406 (22001): Data too long for column 'consumer_name'";
  }
  SECTION("the effect's own unique key (notification_job primary key)") {
    db.exec(
        "INSERT INTO notification_job (event_id, order_id, source_version, status, created_at) "
        "VALUES ('" +
        event.event_id + "', 99, 1, 'PENDING', CURRENT_TIMESTAMP(6))");
    expected = "handler: MySQL error 1062 (23000): Duplicate entry '" + event.event_id +
               "' for key " + db.duplicate_key("notification_job", "PRIMARY");
  }
  SECTION("connection lost (2013)") {
    db.exec("KILL CONNECTION " + connection_id(*session));
    expected = "MySQL error 20";  // 2013 lost, or 2006 gone away
  }

  const ApplyOutcome outcome = apply_once(*session, consumer, event, counted_planner(calls));
  INFO(outcome.detail);
  CHECK(outcome.verdict == ApplyVerdict::kFailed);
  CHECK(outcome.detail.find(expected) != std::string::npos);
  CHECK(db.scalar("SELECT COUNT(*) FROM consumed_event WHERE consumer_name = '" + consumer + "'") ==
        "0");
  CHECK(db.scalar("SELECT COUNT(*) FROM notification_job WHERE order_id = 2") == "0");
}

TEST_CASE("handler verdicts: a throw or a rejection commits nothing", "[apply-once]") {
  TestDatabase db;
  auto session = open_session(db);
  int calls = 0;

  const EventHandler throws = [](MysqlSession& s, const ReceivedEvent& e) -> EffectResult {
    (void)outbox::planner::plan_notification(s, e);  // the job row is written, then...
    throw std::runtime_error("downstream lookup failed");
  };
  const ApplyOutcome thrown = apply_once(*session, kPlanner, order_accepted(3), throws);
  CHECK(thrown.verdict == ApplyVerdict::kFailed);
  CHECK(thrown.detail == "handler: downstream lookup failed");
  CHECK(db.scalar("SELECT COUNT(*) FROM consumed_event") == "0");
  CHECK(db.scalar("SELECT COUNT(*) FROM notification_job") == "0");

  const auto rejected_because = [&](const ReceivedEvent& event) {
    const ApplyOutcome outcome = apply_once(*session, kPlanner, event, counted_planner(calls));
    CHECK(outcome.verdict == ApplyVerdict::kRejected);
    return outcome.detail;
  };
  CHECK(rejected_because(order_accepted(4, "not json")) == "payload is not valid JSON");
  CHECK(rejected_because(order_accepted(5, "{\"version\": 1}")) ==
        "payload has no integer order_id");
  CHECK(rejected_because(order_accepted(6, "{\"order_id\": \"6\", \"version\": 1}")) ==
        "payload has no integer order_id");
  CHECK(rejected_because(order_accepted(7, "{\"order_id\": 7, \"version\": 1.5}")) ==
        "payload has no integer version");
  ReceivedEvent untyped = order_accepted(8);
  untyped.headers = {{"event_id", untyped.event_id}};
  CHECK(rejected_because(untyped) == "no event_type header (nor ce_type)");
  CHECK(db.scalar("SELECT COUNT(*) FROM consumed_event") == "0");

  // Another event type needs no job: consumed, nothing else.
  ReceivedEvent shipped = order_accepted(9);
  shipped.headers = {{"event_id", shipped.event_id}, {"event_type", "ORDER_SHIPPED"}};
  CHECK(apply_once(*session, kPlanner, shipped, counted_planner(calls)).verdict ==
        ApplyVerdict::kApplied);
  CHECK(db.scalar("SELECT COUNT(*) FROM consumed_event") == "1");
  CHECK(db.scalar("SELECT COUNT(*) FROM notification_job") == "0");
}

TEST_CASE("KILL CONNECTION at the consumer's commit: outcome unknown, the retry applies once",
          "[apply-once][unknown]") {
  TestDatabase db;
  auto session = open_session(db);
  int calls = 0;
  const ReceivedEvent event = order_accepted(10);
  ApplyOutcome outcome;
  {
    REQUIRE(outbox::failpoints::configure("consumer.before_commit=sleep:4000", true));
    auto pending = std::async(std::launch::async, [&] {
      const outbox::MysqlThreadScope thread_mysql;
      return apply_once(*session, kPlanner, event, counted_planner(calls));
    });
    std::optional<std::string> waiting;
    REQUIRE(eventually([&] { return (waiting = outbox::test::idle_session(db)).has_value(); }));
    db.exec("KILL CONNECTION " + *waiting);
    outcome = pending.get();
    REQUIRE(outbox::failpoints::configure("", true));
  }
  INFO(outcome.detail);
  CHECK(outcome.verdict == ApplyVerdict::kCommitUnknown);
  CHECK(outcome.session_lost);
  CHECK(outcome.detail.find("COMMIT: MySQL error 2013") != std::string::npos);
  CHECK(consumed(db, event) == "0");  // killed before COMMIT reached the server

  auto fresh = open_session(db);
  CHECK(apply_once(*fresh, kPlanner, event, counted_planner(calls)).verdict ==
        ApplyVerdict::kApplied);
  CHECK(consumed(db, event) == "1");
  CHECK(db.scalar("SELECT COUNT(*) FROM notification_job") == "1");
}
