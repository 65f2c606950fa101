// The writer library against a real MariaDB: each outcome of submit() produced for real
// (COMMITTED; ROLLED_BACK by a constraint violation; UNKNOWN by KILL CONNECTION from a second
// session at the commit, and by an answer lost on the wire after the server committed),
// reconcile after each, duplicates, and append_event in a caller's transaction. Every effect
// is checked with the mariadb CLI, an independent client.
#include <catch2/catch.hpp>

#include <future>
#include <variant>

#include "append_event.hpp"
#include "failpoint.hpp"
#include "mysql/mysql_session.hpp"
#include "order_writer.hpp"
#include "poll.hpp"
#include "tcp_proxy.hpp"
#include "test_database.hpp"
#include "test_session.hpp"

using outbox::test::eventually;
using outbox::test::TestDatabase;
using outbox::writer::AcceptedOrder;
using outbox::writer::AlreadyAccepted;
using outbox::writer::CommitOutcomeUnknown;
using outbox::writer::Committed;
using outbox::writer::OrderSubmission;
using outbox::writer::OrderWriter;
using outbox::writer::RolledBack;
using outbox::writer::SubmitResult;

namespace {

constexpr int64_t kTenant = 7;

OrderSubmission order(int n, const std::string& id_prefix = "w") {
  OrderSubmission submission;
  submission.tenant_id = kTenant;
  submission.request_id = "req-" + std::to_string(n);
  submission.order_id = n;
  submission.event_id = outbox::test::event_id(id_prefix, n);
  submission.version = 1;
  submission.payload = "{\"order_id\": " + std::to_string(n) + ", \"version\": 1}";
  return submission;
}

OrderWriter writer_for(const TestDatabase& db) {
  outbox::init_mysql_driver();
  return OrderWriter(db.endpoint());
}

long long count(const TestDatabase& db, const std::string& sql) {
  return std::stoll(db.scalar(sql));
}

std::optional<AcceptedOrder> reconciled(const OrderWriter& writer, const OrderSubmission& sent) {
  auto found = writer.reconcile(sent.tenant_id, sent.request_id);
  INFO((found ? "" : found.error().message));
  REQUIRE(found);
  return found.value();
}

// Arms failpoints in this test process and disarms them when the test ends, pass or fail.
struct ArmedFailpoints {
  explicit ArmedFailpoints(const std::string& spec) {
    REQUIRE(outbox::failpoints::configure(spec, true));
  }
  ~ArmedFailpoints() { (void)outbox::failpoints::configure("", true); }
  ArmedFailpoints(const ArmedFailpoints&) = delete;
  ArmedFailpoints& operator=(const ArmedFailpoints&) = delete;
};

// Runs submit() on a thread of its own (with its MySQL thread registration), so the test can
// act on the server while the writer waits in writer.before_commit.
std::future<SubmitResult> submit_async(OrderWriter& writer, const OrderSubmission& sent) {
  return std::async(std::launch::async, [&writer, sent] {
    const outbox::MysqlThreadScope thread_mysql;
    return writer.submit(sent);
  });
}

// The server thread id of the writer's connection once it waits at the commit (idle in the
// writer.before_commit sleep) with both rows written and uncommitted. Fails at once, with the
// writer's answer, if submit() returned early.
//
// Idle alone is not enough: on a loaded machine the new session can sit idle for a second
// between its set-up and its first INSERT (seen in CI on MySQL), before any transaction; so
// the condition is an idle session whose transaction holds both rows.
std::string connection_waiting_at_commit(const TestDatabase& db,
                                         std::future<SubmitResult>& pending) {
  std::optional<std::string> id;
  REQUIRE(eventually([&] {
    if (pending.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
      FAIL("submit returned before the commit: " << describe(pending.get()));
    }
    id = outbox::test::idle_session(db);
    if (!id) return false;
    const auto rows = db.query(
        "SELECT trx_rows_modified FROM information_schema.INNODB_TRX WHERE trx_mysql_thread_id "
        "= " +
        *id);
    return rows.size() == 1 && rows[0][0] == "2";
  }));
  return *id;
}

}  // namespace

TEST_CASE("submit commits the order and its PENDING event together, reconcile finds them",
          "[writer]") {
  TestDatabase db;
  OrderWriter writer = writer_for(db);
  const OrderSubmission sent = order(42);
  const SubmitResult result = writer.submit(sent);
  INFO(describe(result));
  REQUIRE(std::holds_alternative<Committed>(result));
  CHECK(std::get<Committed>(result).order == AcceptedOrder{42, sent.event_id});

  CHECK(db.query("SELECT tenant_id, request_id, acceptance_event_id, version, status FROM orders "
                 "WHERE id = 42") ==
        outbox::test::Rows{{"7", "req-42", sent.event_id, "1", "ACCEPTED"}});
  CHECK(db.query("SELECT aggregate_type, aggregate_id, event_type, event_version, payload, "
                 "status, lease_owner IS NULL FROM outbox_event WHERE event_id = '" +
                 sent.event_id + "'") ==
        outbox::test::Rows{
            {"order", "42", "ORDER_ACCEPTED", "1", db.stored_json(sent.payload), "PENDING", "1"}});
  // Both timestamps come from the database clock, within the one transaction.
  CHECK(count(db,
              "SELECT ABS(TIMESTAMPDIFF(SECOND, o.created_at, e.created_at)) < 2 AND "
              "ABS(TIMESTAMPDIFF(SECOND, e.created_at, CURRENT_TIMESTAMP(6))) < 60 FROM orders o "
              "JOIN outbox_event e ON e.event_id = o.acceptance_event_id WHERE o.id = 42") == 1);

  CHECK(reconciled(writer, sent) == AcceptedOrder{42, sent.event_id});
  CHECK_FALSE(reconciled(writer, order(43)).has_value());
}

TEST_CASE("a constraint violation after the order insert rolls both rows back", "[writer]") {
  TestDatabase db;
  OrderWriter writer = writer_for(db);
  const OrderSubmission sent = order(1);
  // An event row with this id already exists, so the order insert succeeds and the event
  // insert, the transaction's second statement, fails on outbox_event's primary key.
  db.exec(
      "INSERT INTO outbox_event (event_id, aggregate_type, aggregate_id, event_type, "
      "event_version, payload, status, created_at) VALUES ('" +
      sent.event_id + "', 'other', 'x', 'OTHER', 1, '{}', 'PENDING', CURRENT_TIMESTAMP(6))");
  const SubmitResult result = writer.submit(sent);
  INFO(describe(result));
  REQUIRE(std::holds_alternative<RolledBack>(result));
  CHECK(std::get<RolledBack>(result).error_code == 1062);
  CHECK(std::get<RolledBack>(result).error.find("PRIMARY") != std::string::npos);
  CHECK(count(db, "SELECT COUNT(*) FROM orders") == 0);  // the order insert was undone
  CHECK(count(db, "SELECT COUNT(*) FROM outbox_event WHERE aggregate_type = 'order'") == 0);
  CHECK_FALSE(reconciled(writer, sent).has_value());

  // The same session is healthy afterwards: a correct order commits.
  OrderSubmission fixed = sent;
  fixed.event_id = outbox::test::event_id("fixed", 1);
  REQUIRE(std::holds_alternative<Committed>(writer.submit(fixed)));
  CHECK(reconciled(writer, sent) == AcceptedOrder{1, fixed.event_id});
}

TEST_CASE("a second submit of the same (tenant, request) is already accepted with the stored ids",
          "[writer]") {
  TestDatabase db;
  OrderWriter writer = writer_for(db);
  const OrderSubmission first = order(10);
  REQUIRE(std::holds_alternative<Committed>(writer.submit(first)));

  // A retry that (wrongly) made new ids still resolves to the first acceptance.
  OrderSubmission again = first;
  again.order_id = 11;
  again.event_id = outbox::test::event_id("again", 11);
  const SubmitResult result = writer.submit(again);
  INFO(describe(result));
  REQUIRE(std::holds_alternative<AlreadyAccepted>(result));
  CHECK(std::get<AlreadyAccepted>(result).stored == AcceptedOrder{10, first.event_id});
  // And the same ids again, the usual retry (refused by the primary key, which InnoDB checks
  // before uq_orders_tenant_request).
  const SubmitResult same = writer.submit(first);
  INFO(describe(same));
  REQUIRE(std::holds_alternative<AlreadyAccepted>(same));
  CHECK(std::get<AlreadyAccepted>(same).stored == AcceptedOrder{10, first.event_id});

  CHECK(count(db, "SELECT COUNT(*) FROM orders") == 1);
  CHECK(count(db, "SELECT COUNT(*) FROM outbox_event") == 1);

  // The key is per tenant: the same request id of another tenant is a new order.
  OrderSubmission other_tenant = order(12);
  other_tenant.tenant_id = 8;
  other_tenant.request_id = first.request_id;
  REQUIRE(std::holds_alternative<Committed>(writer.submit(other_tenant)));
}

TEST_CASE("a duplicate on another unique key is rolled back, never already accepted", "[writer]") {
  TestDatabase db;
  OrderWriter writer = writer_for(db);
  REQUIRE(std::holds_alternative<Committed>(writer.submit(order(20))));

  // New request, but the event id of order 20: uq_orders_acceptance_event refuses it.
  OrderSubmission reused_event = order(21);
  reused_event.event_id = order(20).event_id;
  const SubmitResult on_event_key = writer.submit(reused_event);
  INFO(describe(on_event_key));
  REQUIRE(std::holds_alternative<RolledBack>(on_event_key));
  CHECK(std::get<RolledBack>(on_event_key).error_code == 1062);
  CHECK(std::get<RolledBack>(on_event_key).error.find("uq_orders_acceptance_event") !=
        std::string::npos);

  // New request, but order id 20: the primary key refuses it.
  OrderSubmission reused_order = order(22);
  reused_order.order_id = 20;
  const SubmitResult on_primary = writer.submit(reused_order);
  INFO(describe(on_primary));
  REQUIRE(std::holds_alternative<RolledBack>(on_primary));
  CHECK(std::get<RolledBack>(on_primary).error_code == 1062);

  CHECK(count(db, "SELECT COUNT(*) FROM orders") == 1);
  CHECK_FALSE(reconciled(writer, reused_event).has_value());
}

TEST_CASE(
    "KILL CONNECTION at the commit: outcome unknown, reconcile finds nothing, the same ids "
    "commit once",
    "[writer][unknown]") {
  TestDatabase db;
  OrderWriter writer = writer_for(db);
  const OrderSubmission sent = order(30);
  SubmitResult result = RolledBack{};
  {
    const ArmedFailpoints armed("writer.before_commit=sleep:4000");
    auto pending = submit_async(writer, sent);
    db.exec("KILL CONNECTION " + connection_waiting_at_commit(db, pending));
    result = pending.get();
  }
  INFO(describe(result));
  REQUIRE(std::holds_alternative<CommitOutcomeUnknown>(result));
  CHECK(std::get<CommitOutcomeUnknown>(result).error.find("COMMIT of order 30") !=
        std::string::npos);

  // The server rolled the killed session back: the primary has nothing for the request.
  CHECK(count(db, "SELECT COUNT(*) FROM orders") == 0);
  CHECK_FALSE(reconciled(writer, sent).has_value());
  // Absent for certain: resubmit with the very same ids (the writer reconnects by itself).
  const SubmitResult again = writer.submit(sent);
  INFO(describe(again));
  REQUIRE(std::holds_alternative<Committed>(again));
  CHECK(reconciled(writer, sent) == AcceptedOrder{30, sent.event_id});
  CHECK(count(db, "SELECT COUNT(*) FROM outbox_event WHERE event_id = '" + sent.event_id + "'") ==
        1);
}

TEST_CASE(
    "the commit's answer lost on the wire: outcome unknown, reconcile finds the committed "
    "order, nothing is replayed",
    "[writer][unknown]") {
  TestDatabase db;
  const outbox::MysqlEndpoint direct = db.endpoint();
  outbox::test::TcpProxy proxy(direct.host, direct.port);
  outbox::MysqlEndpoint through_proxy = direct;
  through_proxy.port = proxy.port();
  outbox::init_mysql_driver();
  OrderWriter writer(through_proxy);
  const OrderSubmission sent = order(40);
  SubmitResult result = RolledBack{};
  {
    const ArmedFailpoints armed("writer.before_commit=sleep:4000");
    auto pending = submit_async(writer, sent);
    connection_waiting_at_commit(db, pending);
    proxy.lose_next_reply();  // COMMIT reaches the server; its OK never reaches the writer
    result = pending.get();
  }
  INFO(describe(result));
  CHECK(proxy.replies_lost() == 1);
  REQUIRE(std::holds_alternative<CommitOutcomeUnknown>(result));

  // The server did commit: reconcile on the primary returns the stored ids, so the caller
  // takes them and does not submit again.
  CHECK(reconciled(writer, sent) == AcceptedOrder{40, sent.event_id});
  CHECK(count(db, "SELECT COUNT(*) FROM orders WHERE id = 40") == 1);
  CHECK(count(db, "SELECT COUNT(*) FROM outbox_event WHERE status = 'PENDING' AND event_id = '" +
                      sent.event_id + "'") == 1);
  // A caller that resubmitted anyway (the same ids) would only learn the same ids.
  const SubmitResult blind = writer.submit(sent);
  REQUIRE(std::holds_alternative<AlreadyAccepted>(blind));
  CHECK(std::get<AlreadyAccepted>(blind).stored == AcceptedOrder{40, sent.event_id});
  CHECK(count(db, "SELECT COUNT(*) FROM outbox_event") == 1);
}

TEST_CASE("append_event joins the caller's transaction: visible only after its commit",
          "[writer][append]") {
  TestDatabase db;
  const auto opened = outbox::test::open_session(db);
  outbox::MysqlSession& session = *opened;
  const outbox::writer::OutboxEventRecord event{outbox::test::event_id("append", 1),
                                                "invoice",
                                                "inv-9",
                                                "INVOICE_ISSUED",
                                                3,
                                                "{\"invoice\": 9}",
                                                {}};
  const std::string where = "event_id = '" + event.event_id + "'";

  SECTION("commit publishes the event with the business rows") {
    session.execute("CREATE TEMPORARY TABLE invoice (id INT PRIMARY KEY)");
    session.execute("INSERT INTO invoice VALUES (9)");
    outbox::writer::append_event(session, event);
    CHECK(db.count(where) == 0);  // another client sees nothing before the commit
    session.commit();
    CHECK(db.query("SELECT aggregate_type, aggregate_id, event_type, event_version, payload, "
                   "status FROM outbox_event WHERE " +
                   where) == outbox::test::Rows{{"invoice", "inv-9", "INVOICE_ISSUED", "3",
                                                 "{\"invoice\": 9}", "PENDING"}});
  }
  SECTION("rollback takes the event with it") {
    outbox::writer::append_event(session.connection(), event);
    REQUIRE(session.rollback());
    CHECK(db.count(where) == 0);
  }
  SECTION("autocommit on is refused: the event would commit alone") {
    session.connection().setAutoCommit(true);
    CHECK_THROWS_WITH(outbox::writer::append_event(session, event),
                      Catch::Contains("autocommit is on"));
    CHECK(db.count(where) == 0);
  }
  SECTION("an event id the column would truncate is refused") {
    outbox::writer::OutboxEventRecord long_id = event;
    long_id.event_id = std::string(37, 'a');
    CHECK_THROWS_WITH(outbox::writer::append_event(session, long_id),
                      Catch::Contains("37 bytes long"));
  }
}

TEST_CASE("submit stores the trace context, and refuses a malformed one before the transaction",
          "[writer][trace]") {
  TestDatabase db;
  OrderWriter writer = writer_for(db);
  OrderSubmission traced = order(50);
  traced.trace = {"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
                  "rojo=00f067aa0ba902b7"};
  const SubmitResult committed = writer.submit(traced);
  INFO(describe(committed));
  REQUIRE(std::holds_alternative<Committed>(committed));
  CHECK(db.query("SELECT traceparent, tracestate FROM outbox_event WHERE event_id = '" +
                 traced.event_id + "'") ==
        outbox::test::Rows{{traced.trace.traceparent, traced.trace.tracestate}});

  OrderSubmission untraced = order(51);
  REQUIRE(std::holds_alternative<Committed>(writer.submit(untraced)));
  CHECK(db.scalar("SELECT CONCAT(traceparent IS NULL, tracestate IS NULL) FROM outbox_event "
                  "WHERE event_id = '" +
                  untraced.event_id + "'") == "11");

  OrderSubmission malformed = order(52);
  malformed.trace.traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7";
  const SubmitResult refused = writer.submit(malformed);
  REQUIRE(std::holds_alternative<RolledBack>(refused));
  CHECK(std::get<RolledBack>(refused).error ==
        "not started: traceparent \"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7\" is not "
        "version-traceid-parentid-flags (00-<32 hex>-<16 hex>-<2 hex>)");
  CHECK(std::get<RolledBack>(refused).error_code == 0);
  OrderSubmission state_alone = order(53);
  state_alone.trace.tracestate = "rojo=1";
  const SubmitResult alone = writer.submit(state_alone);
  REQUIRE(std::holds_alternative<RolledBack>(alone));
  CHECK(std::get<RolledBack>(alone).error ==
        "not started: tracestate is set without a traceparent");
  CHECK(count(db, "SELECT COUNT(*) FROM orders WHERE id IN (52, 53)") == 0);
  CHECK(count(db, "SELECT COUNT(*) FROM outbox_event") == 2);
}

TEST_CASE("append_event stores a binary payload and a trace context byte for byte",
          "[writer][append][trace]") {
  TestDatabase db;
  db.exec("ALTER TABLE outbox_event MODIFY payload LONGBLOB NOT NULL");
  const auto opened = outbox::test::open_session(db);
  outbox::MysqlSession& session = *opened;
  outbox::writer::OutboxEventRecord event{outbox::test::event_id("blob", 1),
                                          "invoice",
                                          "inv-1",
                                          "INVOICE_ISSUED",
                                          1,
                                          std::string("\x00\xff\xc3\x28 proto\x00", 11),
                                          {}};
  event.trace.traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
  outbox::writer::append_event(session, event);
  session.commit();
  CHECK(db.query("SELECT LOWER(HEX(payload)), traceparent, tracestate IS NULL FROM outbox_event "
                 "WHERE event_id = '" +
                 event.event_id + "'") ==
        outbox::test::Rows{{"00ffc3282070726f746f00", event.trace.traceparent, "1"}});

  outbox::writer::OutboxEventRecord malformed = event;
  malformed.event_id = outbox::test::event_id("blob", 2);
  malformed.trace.traceparent = "00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01";
  CHECK_THROWS_WITH(outbox::writer::append_event(session, malformed),
                    "append_event: event " + malformed.event_id +
                        ": traceparent \"00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01\" "
                        "has an invalid trace id (32 lower-case hex digits, not all zero)");
  REQUIRE(session.rollback());
  CHECK(db.count("event_id = '" + malformed.event_id + "'") == 0);
}
