// outboxctl's query entry points (the seed's section 6) against a real MariaDB: rows written
// with the mariadb CLI, answers compared exactly, in text and in JSON (checked by jq).
#include <catch2/catch.hpp>

#include <regex>

#include "relay_process.hpp"
#include "test_database.hpp"

using outbox::test::Outboxctl;
using outbox::test::TestDatabase;

namespace {

const std::string kAccepted = "11111111-0000-4000-8000-000000001001";
const std::string kPaid = "22222222-0000-4000-8000-000000001001";

// Order 1001 of tenant 7: its acceptance event published, consumed by two consumers (one left
// a notification job); its second event parked as FAILED.
void insert_order_history(const TestDatabase& db) {
  db.exec(
      "INSERT INTO orders (id, tenant_id, request_id, acceptance_event_id, version, status, "
      "created_at) VALUES (1001, 7, 'req-1001', '" +
      kAccepted +
      "', 2, 'PAID', '2024-05-01 10:00:00.000001');"
      "INSERT INTO outbox_event (event_id, aggregate_type, aggregate_id, event_type, "
      "event_version, payload, status, created_at, published_at, published_by) VALUES ('" +
      kAccepted +
      "', 'order', '1001', 'ORDER_ACCEPTED', 1, '{\"order_id\":1001}', 'PUBLISHED', "
      "'2024-05-01 10:00:00.000002', '2024-05-01 10:00:00.250000', 'relay-a/w0/c1');"
      "INSERT INTO outbox_event (event_id, aggregate_type, aggregate_id, event_type, "
      "event_version, payload, status, created_at, attempts, last_error) VALUES ('" +
      kPaid +
      "', 'order', '1001', 'ORDER_PAID', 2, '{\"order_id\":1001}', 'FAILED', "
      "'2024-05-01 11:00:00', 10, 'MSG_SIZE_TOO_LARGE: Broker: Message size too large');"
      "INSERT INTO consumed_event (consumer_name, event_id, consumed_at) VALUES "
      "('notification-planner', '" +
      kAccepted + "', '2024-05-01 10:00:01'), ('reporting', '" + kAccepted +
      "', '2024-05-01 10:00:02.5');"
      "INSERT INTO notification_job (event_id, order_id, source_version, status, created_at) "
      "VALUES ('" +
      kAccepted + "', 1001, 1, 'PENDING', '2024-05-01 10:00:01')");
}

// The payload_bytes of the events above, '{"order_id":1001}': 17 bytes as written. MySQL stores
// JSON in a binary form and gives back its own text of it, '{"order_id": 1001}' (18 bytes).
std::string stored_payload_bytes(const TestDatabase& db) {
  return db.on_mysql() ? "18" : "17";
}

// Ages change while the test runs; everything else is exact.
std::string without_ages(const std::string& text) {
  return std::regex_replace(text, std::regex(R"(\d+\.\d{3})"), "<age>");
}

}  // namespace

TEST_CASE("outboxctl event shows an event's state and the order it accepted", "[outboxctl]") {
  TestDatabase db;
  insert_order_history(db);
  const Outboxctl outboxctl(db);

  const auto text = outboxctl.run({"event", kAccepted});
  INFO(text.err);
  CHECK(text.status == 0);
  CHECK(text.out == "event_id:        " + kAccepted +
                        "\n"
                        "aggregate_type:  order\n"
                        "aggregate_id:    1001\n"
                        "event_type:      ORDER_ACCEPTED\n"
                        "event_version:   1\n"
                        "status:          PUBLISHED\n"
                        "attempts:        0\n"
                        "last_error:      -\n"
                        "next_attempt_at: -\n"
                        "lease_owner:     -\n"
                        "lease_until:     -\n"
                        "lease_state:     -\n"
                        "created_at:      2024-05-01T10:00:00.000002Z\n"
                        "published_at:    2024-05-01T10:00:00.250000Z\n"
                        "published_by:    relay-a/w0/c1\n"
                        "traceparent:     -\n"
                        "tracestate:      -\n"
                        "payload_bytes:   " +
                        stored_payload_bytes(db) +
                        "\n"
                        "order:\n"
                        "  id:                  1001\n"
                        "  tenant_id:           7\n"
                        "  request_id:          req-1001\n"
                        "  acceptance_event_id: " +
                        kAccepted +
                        "\n"
                        "  version:             2\n"
                        "  status:              PAID\n"
                        "  created_at:          2024-05-01T10:00:00.000001Z\n");

  const auto json = outboxctl.run({"event", kPaid, "--json"});
  CHECK(json.status == 0);
  CHECK(outbox::test::is_json(json.out));
  CHECK(json.out == "{\"event_id\":\"" + kPaid +
                        "\",\"aggregate_type\":\"order\",\"aggregate_id\":\"1001\",\"event_type\":"
                        "\"ORDER_PAID\",\"event_version\":2,\"status\":\"FAILED\",\"attempts\":10,"
                        "\"last_error\":\"MSG_SIZE_TOO_LARGE: Broker: Message size too large\","
                        "\"next_attempt_at\":null,\"lease_owner\":null,\"lease_until\":null,"
                        "\"lease_state\":null,\"created_at\":\"2024-05-01T11:00:00.000000Z\","
                        "\"published_at\":null,\"published_by\":null,\"traceparent\":null,"
                        "\"tracestate\":null,\"payload_bytes\":" +
                        stored_payload_bytes(db) + ",\"order\":null}\n");
}

TEST_CASE("outboxctl event tells a live lease from an expired one", "[outboxctl]") {
  TestDatabase db;
  db.insert_events(2, "lease");
  db.exec(
      "UPDATE outbox_event SET status = 'PUBLISHING', lease_owner = 'relay-b/w1/c9', "
      "lease_until = IF(event_id LIKE '%1', '2037-01-01 00:00:00', '2001-01-01 00:00:00')");
  const Outboxctl outboxctl(db);
  const auto live = outboxctl.run({"--json", "event", outbox::test::event_id("lease", 1)});
  CHECK(outbox::test::jq("[.status, .lease_owner, .lease_until, .lease_state] | join(\" \")",
                         live.out) == "PUBLISHING relay-b/w1/c9 2037-01-01T00:00:00.000000Z live");
  const auto expired = outboxctl.run({"--json", "event", outbox::test::event_id("lease", 2)});
  CHECK(outbox::test::jq(".lease_state", expired.out) == "expired");
}

TEST_CASE("outboxctl event names an unknown event and exits 1", "[outboxctl]") {
  TestDatabase db;
  const Outboxctl outboxctl(db);
  const auto text = outboxctl.run({"event", "no-such-event"});
  CHECK(text.status == 1);
  CHECK(text.out.empty());
  CHECK(text.err == "event no-such-event: no such event\n");
  const auto json = outboxctl.run({"--json", "event", "no-such-event"});
  CHECK(json.status == 1);
  CHECK(json.out ==
        "{\"event_id\":\"no-such-event\",\"error\":\"event no-such-event: no such event\"}\n");
  const auto usage = outboxctl.run({"event"});
  CHECK(usage.status == 64);
  CHECK(usage.err == "usage: outboxctl event <event_id>\n");
}

TEST_CASE("outboxctl consumed shows the consumer's row and the effect it left", "[outboxctl]") {
  TestDatabase db;
  insert_order_history(db);
  const Outboxctl outboxctl(db);
  const auto text = outboxctl.run({"consumed", "notification-planner", kAccepted});
  CHECK(text.status == 0);
  CHECK(text.out ==
        "consumer:          notification-planner\n"
        "event_id:          " +
            kAccepted +
            "\n"
            "outbox_status:     PUBLISHED\n"
            "consumed_at:       2024-05-01T10:00:01.000000Z\n"
            "consumed_event_id: 1\n"
            "notification_job:\n"
            "  order_id:       1001\n"
            "  source_version: 1\n"
            "  status:         PENDING\n"
            "  created_at:     2024-05-01T10:00:01.000000Z\n"
            "  trace_id:       -\n");
  const auto json = outboxctl.run({"consumed", "reporting", kAccepted, "--json"});
  CHECK(json.out == "{\"consumer\":\"reporting\",\"event_id\":\"" + kAccepted +
                        "\",\"outbox_status\":\"PUBLISHED\",\"consumed_at\":\"2024-05-01T10:00:"
                        "02.500000Z\",\"consumed_event_id\":2,\"notification_job\":{\"order_id\":"
                        "1001,\"source_version\":1,\"status\":\"PENDING\",\"created_at\":\"2024-"
                        "05-01T10:00:01.000000Z\",\"trace_id\":null}}\n");

  const auto not_consumed = outboxctl.run({"consumed", "notification-planner", kPaid});
  CHECK(not_consumed.status == 1);
  CHECK(not_consumed.err == "event " + kPaid +
                                ": not consumed by notification-planner (no consumed_event row; "
                                "its outbox status is FAILED)\n");
  const auto unknown = outboxctl.run({"--json", "consumed", "reporting", "no-such-event"});
  CHECK(unknown.status == 1);
  CHECK(unknown.out ==
        "{\"consumer\":\"reporting\",\"event_id\":\"no-such-event\",\"outbox_status\":null,"
        "\"error\":\"event no-such-event: not consumed by reporting (no consumed_event row, and "
        "no outbox event has that id)\"}\n");
}

TEST_CASE("outboxctl order follows the business key to the events and their effects",
          "[outboxctl]") {
  TestDatabase db;
  insert_order_history(db);
  const Outboxctl outboxctl(db);
  const auto json = outboxctl.run({"--json", "order", "7", "req-1001"});
  INFO(json.err);
  CHECK(json.status == 0);
  CHECK(outbox::test::is_json(json.out));
  CHECK(outbox::test::jq(".order | [.id, .version, .status] | join(\" \")", json.out) ==
        "1001 2 PAID");
  CHECK(outbox::test::jq("[.aggregate, .acceptance_event_found, .events_truncated] | join(\" \")",
                         json.out) == "order/1001 true false");
  CHECK(outbox::test::jq(".events | map([.event_type, .status] | join(\":\")) | join(\" \")",
                         json.out) == "ORDER_ACCEPTED:PUBLISHED ORDER_PAID:FAILED");
  CHECK(outbox::test::jq(".events[0].consumed_by | map(.consumer) | join(\" \")", json.out) ==
        "notification-planner reporting");
  CHECK(outbox::test::jq(".events[0].notification_job.order_id", json.out) == "1001");
  CHECK(outbox::test::jq(".events[1] | [(.consumed_by | length), .notification_job] | @text",
                         json.out) == "[0,null]");

  const auto text = outboxctl.run({"order", "7", "req-1001"});
  CHECK(text.status == 0);
  const std::string second_event =
      "  - event_id:         " + kPaid +
      "\n"
      "    aggregate_type:   order\n"
      "    aggregate_id:     1001\n"
      "    event_type:       ORDER_PAID\n"
      "    event_version:    2\n"
      "    status:           FAILED\n"
      "    attempts:         10\n"
      "    last_error:       MSG_SIZE_TOO_LARGE: Broker: Message size too large\n"
      "    next_attempt_at:  -\n"
      "    lease_owner:      -\n"
      "    lease_until:      -\n"
      "    lease_state:      -\n"
      "    created_at:       2024-05-01T11:00:00.000000Z\n"
      "    published_at:     -\n"
      "    published_by:     -\n"
      "    traceparent:      -\n"
      "    tracestate:       -\n"
      "    payload_bytes:    " +
      stored_payload_bytes(db) +
      "\n"
      "    consumed_by:      (none)\n"
      "    notification_job: -\n";
  CHECK(text.out.rfind("order:\n  id:                  1001\n", 0) == 0);
  CHECK(text.out.find("aggregate:              order/1001\n"
                      "acceptance_event_found: true\n"
                      "events_truncated:       false\n"
                      "events:\n"
                      "  - event_id:        " +
                      kAccepted) != std::string::npos);
  CHECK(text.out.find("    consumed_by:\n"
                      "      - consumer:    notification-planner\n"
                      "        consumed_at: 2024-05-01T10:00:01.000000Z\n"
                      "        id:          1\n"
                      "      - consumer:    reporting\n") != std::string::npos);
  CHECK(text.out.size() > second_event.size());
  CHECK(text.out.substr(text.out.size() - second_event.size()) == second_event);

  const auto unknown = outboxctl.run({"order", "7", "req-404"});
  CHECK(unknown.status == 1);
  CHECK(unknown.err == "order: no order with tenant_id 7 and request_id req-404\n");
  const auto bad_tenant = outboxctl.run({"order", "seven", "req-1001"});
  CHECK(bad_tenant.status == 64);
  CHECK(bad_tenant.err ==
        "outboxctl order: tenant_id must be an integer, got \"seven\"\n"
        "usage: outboxctl order <tenant_id> <request_id>\n");
}

TEST_CASE("outboxctl backlog counts by status with ages on the database clock", "[outboxctl]") {
  TestDatabase db;
  db.insert_events(9, "backlog");
  // 1-2 PENDING, 3 PUBLISHING, 4 RETRY, 5 BLOCKED, 6-7 FAILED (two aggregates), 8 SKIPPED,
  // 9 PUBLISHED. insert_events creates them an hour ago, one microsecond apart.
  db.exec(
      "UPDATE outbox_event SET status = ELT(CAST(RIGHT(event_id, 1) AS UNSIGNED), 'PENDING', "
      "'PENDING', 'PUBLISHING', 'RETRY', 'BLOCKED', 'FAILED', 'FAILED', 'SKIPPED', "
      "'PUBLISHED'), aggregate_id = CONCAT('agg-', RIGHT(event_id, 1))");
  // Event 4 waits for a paused partition, as the relay writes it (paused_partitions.hpp).
  db.exec(
      "UPDATE outbox_event SET last_error = 'partition paused: outbox.backlog[2]: _MSG_TIMED_OUT: "
      "Local: Message timed out (paused for 12s)' WHERE status = 'RETRY'");
  const Outboxctl outboxctl(db);
  const auto age_of = [&](int n) {
    return std::stod(
        db.scalar("SELECT TIMESTAMPDIFF(MICROSECOND, created_at, CURRENT_TIMESTAMP(6)) / 1e6 FROM "
                  "outbox_event WHERE event_id = '" +
                  outbox::test::event_id("backlog", n) + "'"));
  };
  const double pending_before = age_of(1);
  const double failed_before = age_of(6);
  const auto json = outboxctl.run({"backlog", "--json"});
  const double pending_after = age_of(1);
  INFO(json.out << json.err);
  CHECK(json.status == 0);
  CHECK(outbox::test::jq(".by_status | @text", json.out) ==
        "{\"PENDING\":2,\"PUBLISHING\":1,\"RETRY\":1,\"BLOCKED\":1,\"FAILED\":2,\"SKIPPED\":1}");
  CHECK(outbox::test::jq("[.blocked_aggregates, .ordering] | join(\" \")", json.out) ==
        "2 per_aggregate");
  CHECK(outbox::test::jq(".held_for_paused_partitions[] | \"\\(.partition) \\(.events)\"",
                         json.out) == "outbox.backlog[2] 1");
  const double pending_age = std::stod(outbox::test::jq(".oldest_pending_age_seconds", json.out));
  const double failed_age = std::stod(outbox::test::jq(".oldest_failed_age_seconds", json.out));
  // Millisecond rounding either way.
  CHECK(pending_age >= pending_before - 0.001);
  CHECK(pending_age <= pending_after + 0.001);
  CHECK(failed_age >= failed_before - 0.001);
  CHECK(failed_age <= pending_after + 0.001);

  const auto text = outboxctl.run({"backlog"});
  CHECK(without_ages(text.out) ==
        "by_status:\n"
        "  PENDING:    2\n"
        "  PUBLISHING: 1\n"
        "  RETRY:      1\n"
        "  BLOCKED:    1\n"
        "  FAILED:     2\n"
        "  SKIPPED:    1\n"
        "oldest_pending_age_seconds: <age>\n"
        "oldest_failed_age_seconds:  <age>\n"
        "blocked_aggregates:         2\n"
        "held_for_paused_partitions:\n"
        "  - partition:          outbox.backlog[2]\n"
        "    events:             1\n"
        "    oldest_age_seconds: <age>\n"
        "operator_pauses:\n"
        "  pauses:                (none)\n"
        "  held_for_ended_pauses: 0\n"
        "ordering:                   per_aggregate\n");
}

TEST_CASE("outboxctl backlog of an empty outbox has no ages", "[outboxctl]") {
  TestDatabase db;
  outbox::test::RelayTestConfig unordered;
  unordered.extra_relay_settings = "  ordering: none\n";
  const Outboxctl outboxctl(db, "", unordered);
  const auto json = outboxctl.run({"--json", "backlog"});
  CHECK(json.out ==
        "{\"by_status\":{\"PENDING\":0,\"PUBLISHING\":0,\"RETRY\":0,\"BLOCKED\":0,\"FAILED\":0,"
        "\"SKIPPED\":0},\"oldest_pending_age_seconds\":null,\"oldest_failed_age_seconds\":null,"
        "\"blocked_aggregates\":0,\"held_for_paused_partitions\":[],\"operator_pauses\":{"
        "\"pauses\":[],\"held_for_ended_pauses\":0},\"ordering\":\"none\"}\n");
}

TEST_CASE("outboxctl drain names the instances holding live leases and waits them out",
          "[outboxctl][drain]") {
  TestDatabase db;
  db.insert_events(5, "drain");
  // Three live leases held by two relays, one lease that ended (a killed relay's), one PENDING.
  db.exec(
      "UPDATE outbox_event SET status = 'PUBLISHING', lease_owner = ELT(CAST(RIGHT(event_id, 1) "
      "AS UNSIGNED), 'relay-x/w0/c1', 'relay-x/w1/c2', 'relay-y/w0/c7', 'relay-z/w0/c1'), "
      "lease_until = IF(event_id LIKE '%4', '2001-01-01 00:00:00', '2037-01-01 00:00:00') "
      "WHERE RIGHT(event_id, 1) <> '5'");
  const std::string rows_sql =
      "SELECT event_id, status, lease_owner, lease_until FROM outbox_event ORDER BY event_id";
  const outbox::test::Rows before = db.query(rows_sql);
  const Outboxctl outboxctl(db);

  const auto check = outboxctl.run({"drain"});
  CHECK(check.status == 1);
  CHECK(check.out.rfind(
            "Safe relay rollback: stop claims, let leases end, never delete unpublished rows.\n",
            0) == 0);
  CHECK(check.out.find("\n\n"
                       "drained:        false\n"
                       "live_leases:    3\n"
                       "expired_leases: 1\n"
                       "holders:\n"
                       "  - instance:    relay-x\n"
                       "    events:      2\n"
                       "    lease_until: 2037-01-01T00:00:00.000000Z\n"
                       "  - instance:    relay-y\n"
                       "    events:      1\n"
                       "    lease_until: 2037-01-01T00:00:00.000000Z\n") != std::string::npos);
  CHECK(check.err ==
        "outboxctl drain: not drained: 3 live leases, held by relay-x (2 events, until "
        "2037-01-01T00:00:00.000000Z), relay-y (1 event, until 2037-01-01T00:00:00.000000Z)\n");

  const auto timed_out = outboxctl.run({"--json", "drain", "--wait", "--timeout", "1s"});
  CHECK(timed_out.status == 1);
  CHECK(outbox::test::is_json(timed_out.out));
  CHECK(outbox::test::jq(".error", timed_out.out) ==
        "outboxctl drain: timed out after 1s: 3 live leases, held by relay-x (2 events, until "
        "2037-01-01T00:00:00.000000Z), relay-y (1 event, until 2037-01-01T00:00:00.000000Z)");

  // The relays are gone; their leases end a moment from now.
  db.exec(
      "UPDATE outbox_event SET lease_until = CURRENT_TIMESTAMP(6) + INTERVAL 1 SECOND WHERE "
      "lease_until > '2036-01-01'");
  const outbox::test::Rows stopped = db.query(rows_sql);
  const auto drained = outboxctl.run({"drain", "--wait", "--timeout", "2m", "--json"});
  INFO(drained.err);
  CHECK(drained.status == 0);
  CHECK(drained.out ==
        "{\"drained\":true,\"live_leases\":0,\"expired_leases\":4,\"holders\":[]}\n");
  // It only looked: no row changed, none was deleted.
  CHECK(db.query(rows_sql) == stopped);
  CHECK(before.size() == 5);
}
