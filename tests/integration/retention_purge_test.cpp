// Retention on a real MariaDB: outboxctl purge deletes exactly the rows past their windows
// (checked row by row with the mariadb CLI), in batches, counts them first on --dry-run, and
// refuses windows shorter than the broker's redelivery window. What it deletes of PUBLISHED
// events is counted in outbox_purge_log, per hour of created_at and per type.
#include <catch2/catch.hpp>

#include <regex>

#include "relay_process.hpp"
#include "test_database.hpp"

using outbox::test::Outboxctl;
using outbox::test::Rows;
using outbox::test::TestDatabase;

namespace {

// An outbox row's types and status, and its times as SQL expressions.
struct EventRow {
  std::string id;
  std::string status;
  std::string aggregate_type = "order";
  std::string event_type = "X";
  std::string created_at_sql;
  std::string published_at_sql = "NULL";
};

std::string insert_sql(const EventRow& row) {
  return "INSERT INTO outbox_event (event_id, aggregate_type, aggregate_id, event_type, "
         "event_version, payload, status, created_at, published_at) VALUES ('" +
         row.id + "', '" + row.aggregate_type + "', '" + row.id + "', '" + row.event_type +
         "', 1, '{}', '" + row.status + "', " + row.created_at_sql + ", " + row.published_at_sql +
         ")";
}

// One outbox row: id, status, created and published this many days ago (negative: never).
void insert_event(const TestDatabase& db, const std::string& id, const std::string& status,
                  int created_days_ago, int published_days_ago, int order) {
  db.exec(insert_sql({.id = id,
                      .status = status,
                      .created_at_sql = "CURRENT_TIMESTAMP(6) - INTERVAL " +
                                        std::to_string(created_days_ago) + " DAY + INTERVAL " +
                                        std::to_string(order) + " SECOND",
                      .published_at_sql = published_days_ago < 0
                                              ? std::string("NULL")
                                              : "CURRENT_TIMESTAMP(6) - INTERVAL " +
                                                    std::to_string(published_days_ago) + " DAY"}));
}

// An event created at a fixed UTC time in 2024, long past every window, and (unless SKIPPED)
// published a minute later. The client's session runs in UTC for it, as outboxctl's does, so
// the hour the purge log records is the hour written here.
void insert_dated_event(const TestDatabase& db, const std::string& id, const std::string& status,
                        const std::string& types, const std::string& created_utc) {
  const size_t slash = types.find('/');
  const std::string created = "TIMESTAMP '" + created_utc + "'";
  db.exec("SET time_zone = '+00:00'; " +
          insert_sql({.id = id,
                      .status = status,
                      .aggregate_type = types.substr(0, slash),
                      .event_type = types.substr(slash + 1),
                      .created_at_sql = created,
                      .published_at_sql = status == "SKIPPED" ? std::string("NULL")
                                                              : created + " + INTERVAL 1 MINUTE"}));
}

// Rows past the windows (10 days) and rows that must stay, interleaved in created_at order so
// that a batch has to step over the rows it keeps.
void insert_history(const TestDatabase& db) {
  insert_event(db, "pub-old-1", "PUBLISHED", 40, 40, 1);
  insert_event(db, "pub-old-2", "PUBLISHED", 40, 40, 2);
  // Created long ago but published yesterday (it was FAILED for weeks, then requeued): a
  // consumer may still see it again, so it stays.
  insert_event(db, "pub-late", "PUBLISHED", 40, 1, 3);
  insert_event(db, "pub-old-3", "PUBLISHED", 40, 39, 4);
  insert_event(db, "pub-old-4", "PUBLISHED", 30, 30, 5);
  insert_event(db, "pub-old-5", "PUBLISHED", 20, 20, 6);
  insert_event(db, "pub-new", "PUBLISHED", 2, 2, 7);
  insert_event(db, "skip-old", "SKIPPED", 40, -1, 8);
  insert_event(db, "skip-new", "SKIPPED", 3, -1, 9);
  // Unpublished rows are never deleted, however old.
  for (const char* status : {"PENDING", "PUBLISHING", "RETRY", "BLOCKED", "FAILED"}) {
    insert_event(db, std::string("old-") + status, status, 60, -1, 10);
  }
  db.exec(
      "INSERT INTO consumed_event (consumer_name, event_id, consumed_at) VALUES "
      "('planner', 'pub-old-1', CURRENT_TIMESTAMP(6) - INTERVAL 40 DAY),"
      "('reporting', 'pub-old-1', CURRENT_TIMESTAMP(6) - INTERVAL 40 DAY),"
      "('planner', 'pub-old-2', CURRENT_TIMESTAMP(6) - INTERVAL 35 DAY),"
      "('planner', 'pub-late', CURRENT_TIMESTAMP(6) - INTERVAL 11 DAY),"
      "('planner', 'pub-new', CURRENT_TIMESTAMP(6) - INTERVAL 2 DAY),"
      "('reporting', 'pub-new', CURRENT_TIMESTAMP(6) - INTERVAL 9 DAY)");
}

const std::string kRetention =
    "retention:\n"
    "  broker_redelivery_window: 7d\n"
    "  published_after: 10d\n"
    "  consumed_after: 10d\n"
    "  batch_size: 2\n";

std::string without_times(const std::string& text) {
  return std::regex_replace(text, std::regex(R"(\d{4}-\d\d-\d\dT[0-9:.]+Z)"), "<time>");
}

Rows outbox_ids(const TestDatabase& db) {
  return db.query("SELECT event_id FROM outbox_event ORDER BY event_id");
}

Rows consumed_rows(const TestDatabase& db) {
  return db.query(
      "SELECT consumer_name, event_id FROM consumed_event ORDER BY consumer_name, event_id");
}

Rows purge_log(const TestDatabase& db) {
  return db.query(
      "SELECT created_hour, aggregate_type, event_type, purged_events FROM outbox_purge_log "
      "ORDER BY created_hour, aggregate_type, event_type");
}

const std::string kPurgeLogMissing =
    "missing: apply sql/015_outbox_purge_log.sql; a replay cannot count the events purged";

}  // namespace

TEST_CASE("purge deletes exactly the rows past their windows, in batches", "[retention]") {
  TestDatabase db;
  insert_history(db);
  const Outboxctl outboxctl(db, kRetention);
  const Rows all_events = outbox_ids(db);
  const Rows all_consumed = consumed_rows(db);

  const auto dry = outboxctl.run({"purge", "--dry-run"});
  INFO(dry.err);
  CHECK(dry.status == 0);
  // PUBLISHED: 5 rows in batches of 2 (2, 2, 1); SKIPPED: 1. consumed_event: 4 (2, 2; the
  // empty look after a full batch is not a batch).
  CHECK(without_times(dry.out) ==
        "dry_run: true\n"
        "outbox_event:\n"
        "  window:       10d\n"
        "  cutoff:       <time>\n"
        "  would_delete: 6\n"
        "  batches:      4\n"
        "consumed_event:\n"
        "  window:       10d\n"
        "  cutoff:       <time>\n"
        "  would_delete: 4\n"
        "  batches:      2\n");
  CHECK(outbox_ids(db) == all_events);
  CHECK(consumed_rows(db) == all_consumed);

  const auto purged = outboxctl.run({"--json", "purge"});
  CHECK(purged.status == 0);
  CHECK(outbox::test::is_json(purged.out));
  CHECK(without_times(purged.out) ==
        "{\"dry_run\":false,\"outbox_event\":{\"window\":\"10d\",\"cutoff\":\"<time>\","
        "\"deleted\":6,\"batches\":4},\"consumed_event\":{\"window\":\"10d\",\"cutoff\":"
        "\"<time>\",\"deleted\":4,\"batches\":2}}\n");
  CHECK(outbox_ids(db) == Rows{{"old-BLOCKED"},
                               {"old-FAILED"},
                               {"old-PENDING"},
                               {"old-PUBLISHING"},
                               {"old-RETRY"},
                               {"pub-late"},
                               {"pub-new"},
                               {"skip-new"}});
  CHECK(consumed_rows(db) == Rows{{"planner", "pub-new"}, {"reporting", "pub-new"}});

  const auto again = outboxctl.run({"--json", "purge"});
  CHECK(outbox::test::jq("[.outbox_event.deleted, .consumed_event.deleted] | @text", again.out) ==
        "[0,0]");
}

TEST_CASE("purge windows can come from the command line, one table at a time", "[retention]") {
  TestDatabase db;
  insert_history(db);
  const Outboxctl outboxctl(db, "retention:\n  broker_redelivery_window: 7d\n");
  const auto purged = outboxctl.run({"purge", "--consumed-after", "30d", "--batch-size", "1"});
  CHECK(purged.status == 0);
  CHECK(without_times(purged.out) ==
        "dry_run:      false\n"
        "outbox_event: -\n"
        "consumed_event:\n"
        "  window:  30d\n"
        "  cutoff:  <time>\n"
        "  deleted: 3\n"
        "  batches: 3\n");
  CHECK(db.count("1") == 14);
  CHECK(consumed_rows(db) ==
        Rows{{"planner", "pub-late"}, {"planner", "pub-new"}, {"reporting", "pub-new"}});
}

TEST_CASE("purge refuses windows shorter than the broker redelivery window", "[retention]") {
  TestDatabase db;
  insert_history(db);
  const Outboxctl outboxctl(db, "retention:\n  broker_redelivery_window: 7d\n");
  const auto refused = outboxctl.run({"purge", "--published-after", "1d"});
  CHECK(refused.status == 1);
  CHECK(refused.out.empty());
  CHECK(refused.err ==
        "outboxctl purge: refused (with --published-after 1d):\n"
        "  retention.published_after: must not be shorter than "
        "retention.broker_redelivery_window (7d), got 1d: an event Kafka delivers again must "
        "still find its rows\n");
  CHECK(db.count("1") == 14);

  const auto bad_flag = outboxctl.run({"purge", "--published-after", "two weeks"});
  CHECK(bad_flag.status == 64);
  CHECK(bad_flag.err ==
        "outboxctl purge: --published-after must be a duration like 30d or 720h, got \"two "
        "weeks\"\n"
        "usage: outboxctl purge [--dry-run] [--published-after D] [--consumed-after D] "
        "[--batch-size N]\n");

  // Without a redelivery window in the file, no window is accepted at all.
  const Outboxctl unconfigured(db);
  const auto no_window = unconfigured.run({"purge", "--consumed-after", "90d"});
  CHECK(no_window.status == 1);
  CHECK(no_window.err.find("retention.broker_redelivery_window: is required when") !=
        std::string::npos);
  CHECK(consumed_rows(db).size() == 6);
}

TEST_CASE("purge is off until a window is set", "[retention]") {
  TestDatabase db;
  insert_history(db);
  const Outboxctl outboxctl(db);
  const auto off = outboxctl.run({"purge"});
  CHECK(off.status == 0);
  CHECK(off.out ==
        "dry_run:        false\n"
        "outbox_event:   -\n"
        "consumed_event: -\n"
        "purge is off: set retention.published_after and/or retention.consumed_after (or pass "
        "--published-after / --consumed-after)\n");
  CHECK(db.count("1") == 14);
  CHECK(consumed_rows(db).size() == 6);
}

TEST_CASE("purge logs per hour and type how many PUBLISHED events it deleted", "[retention]") {
  TestDatabase db;
  // In (created_at, event_id) order, batches of 2: [a1 b1] [c1 O1] [a2 a3]; so one hour and type
  // (10:00 order/ORDER_ACCEPTED) is counted by two batches, and a batch counts several.
  insert_dated_event(db, "log-a1", "PUBLISHED", "order/ORDER_ACCEPTED", "2024-03-01 10:05:00");
  insert_dated_event(db, "log-b1", "PUBLISHED", "order/ORDER_SHIPPED", "2024-03-01 10:30:00");
  insert_dated_event(db, "log-c1", "PUBLISHED", "invoice/ORDER_ACCEPTED", "2024-03-01 10:30:00");
  insert_dated_event(db, "log-a2", "PUBLISHED", "order/ORDER_ACCEPTED",
                     "2024-03-01 10:59:59.999999");
  insert_dated_event(db, "log-a3", "PUBLISHED", "order/ORDER_ACCEPTED", "2024-03-01 11:00:00");
  // Another aggregate type for the relay (outbox.Order, not outbox.order): counted apart, as
  // the log compares types byte for byte where the outbox table's collation would not.
  insert_dated_event(db, "log-O1", "PUBLISHED", "Order/ORDER_ACCEPTED", "2024-03-01 10:40:00");
  // Purged, never logged: a replay has nothing of a SKIPPED event to miss.
  insert_dated_event(db, "log-s1", "SKIPPED", "order/ORDER_ACCEPTED", "2024-03-01 10:20:00");
  insert_dated_event(db, "log-s2", "SKIPPED", "order/ORDER_CANCELLED", "2024-03-01 10:25:00");
  // Of the same hour but published yesterday: it stays, so it is not counted.
  db.exec(insert_sql({.id = "log-late",
                      .status = "PUBLISHED",
                      .event_type = "ORDER_ACCEPTED",
                      .created_at_sql = "TIMESTAMP '2024-03-01 10:10:00'",
                      .published_at_sql = "CURRENT_TIMESTAMP(6) - INTERVAL 1 DAY"}));
  const Outboxctl outboxctl(db, kRetention);

  const auto dry = outboxctl.run({"--json", "purge", "--dry-run"});
  INFO(dry.err);
  CHECK(dry.status == 0);
  CHECK(outbox::test::jq("[.outbox_event.would_delete, .outbox_event.purge_log] | @text",
                         dry.out) == "[8,null]");
  CHECK(purge_log(db).empty());
  CHECK(db.count("1") == 9);

  const auto purged = outboxctl.run({"--json", "purge"});
  INFO(purged.err);
  CHECK(purged.status == 0);
  CHECK(outbox::test::jq("[.outbox_event.deleted, .outbox_event.purge_log] | @text", purged.out) ==
        "[8,null]");
  CHECK(outbox_ids(db) == Rows{{"log-late"}});
  CHECK(purge_log(db) == Rows{{"2024-03-01 10:00:00", "Order", "ORDER_ACCEPTED", "1"},
                              {"2024-03-01 10:00:00", "invoice", "ORDER_ACCEPTED", "1"},
                              {"2024-03-01 10:00:00", "order", "ORDER_ACCEPTED", "2"},
                              {"2024-03-01 10:00:00", "order", "ORDER_SHIPPED", "1"},
                              {"2024-03-01 11:00:00", "order", "ORDER_ACCEPTED", "1"}});

  // A later purge adds to the hours already counted and starts new ones; its dry run first
  // changes nothing.
  insert_dated_event(db, "log-a4", "PUBLISHED", "order/ORDER_ACCEPTED", "2024-03-01 10:45:00");
  insert_dated_event(db, "log-d1", "PUBLISHED", "order/ORDER_ACCEPTED", "2024-03-02 00:15:00");
  insert_dated_event(db, "log-s3", "SKIPPED", "order/ORDER_ACCEPTED", "2024-03-02 00:20:00");
  const Rows first_counts = purge_log(db);
  CHECK(outbox::test::jq(".outbox_event.would_delete",
                         outboxctl.run({"--json", "purge", "--dry-run"}).out) == "3");
  CHECK(purge_log(db) == first_counts);
  const auto again = outboxctl.run({"--json", "purge"});
  CHECK(outbox::test::jq(".outbox_event.deleted", again.out) == "3");
  CHECK(purge_log(db) == Rows{{"2024-03-01 10:00:00", "Order", "ORDER_ACCEPTED", "1"},
                              {"2024-03-01 10:00:00", "invoice", "ORDER_ACCEPTED", "1"},
                              {"2024-03-01 10:00:00", "order", "ORDER_ACCEPTED", "3"},
                              {"2024-03-01 10:00:00", "order", "ORDER_SHIPPED", "1"},
                              {"2024-03-01 11:00:00", "order", "ORDER_ACCEPTED", "1"},
                              {"2024-03-02 00:00:00", "order", "ORDER_ACCEPTED", "1"}});
}

TEST_CASE("purge without outbox_purge_log still purges and says the log is missing",
          "[retention]") {
  TestDatabase db;
  db.exec("DROP TABLE outbox_purge_log");
  insert_history(db);
  const Outboxctl outboxctl(db, kRetention);

  // Said once, in the outbox_event part, however many batches ran.
  const auto dry = outboxctl.run({"purge", "--dry-run"});
  INFO(dry.err);
  CHECK(dry.status == 0);
  CHECK(without_times(dry.out) ==
        "dry_run: true\n"
        "outbox_event:\n"
        "  window:       10d\n"
        "  cutoff:       <time>\n"
        "  would_delete: 6\n"
        "  batches:      4\n"
        "  purge_log:    " +
            kPurgeLogMissing +
            "\n"
            "consumed_event:\n"
            "  window:       10d\n"
            "  cutoff:       <time>\n"
            "  would_delete: 4\n"
            "  batches:      2\n");

  const auto purged = outboxctl.run({"--json", "purge"});
  INFO(purged.err);
  CHECK(purged.status == 0);
  CHECK(without_times(purged.out) ==
        "{\"dry_run\":false,\"outbox_event\":{\"window\":\"10d\",\"cutoff\":\"<time>\","
        "\"deleted\":6,\"batches\":4,\"purge_log\":\"" +
            kPurgeLogMissing +
            "\"},\"consumed_event\":{\"window\":\"10d\",\"cutoff\":\"<time>\",\"deleted\":4,"
            "\"batches\":2}}\n");
  CHECK(db.count("1") == 8);
  CHECK(consumed_rows(db).size() == 2);
}
