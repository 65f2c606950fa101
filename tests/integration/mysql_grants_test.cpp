// deploy/mysql-grants.sql for real: its accounts are created for a test database, and each
// program runs as its account. The relay publishes a backlog (claims, leases, parks and wakes,
// marks) with nothing but SELECT and UPDATE on outbox_event, and may not delete; the writer,
// the consumer and outboxctl can each do their job (outboxctl's purge recording what it
// deleted in outbox_purge_log) and nothing beyond it.
#include <unistd.h>
#include <catch2/catch.hpp>

#include <sstream>

#include "poll.hpp"
#include "relay_process.hpp"
#include "test_database.hpp"
#include "test_env.hpp"
#include "test_kafka.hpp"

using outbox::test::CommandResult;
using outbox::test::TestDatabase;

namespace {

constexpr const char* kRoles[] = {"relay", "writer", "consumer", "admin"};
constexpr const char* kPassword = "change-me";  // as in the file

// "g<pid>_", appended piece by piece: `"g" + std::string&&` trips GCC 12's false -Wrestrict
// at -O2 and above (GCC PR 105651).
std::string account_prefix() {
  std::string prefix = "g";
  prefix += std::to_string(getpid());
  prefix += '_';
  return prefix;
}

// The file's accounts, named for this test and granted on its database; dropped at the end.
class GrantedAccounts {
 public:
  explicit GrantedAccounts(const TestDatabase& db) : db_(db), prefix_(account_prefix()) {
    using outbox::test::replace_all;
    const std::string sql =
        outbox::test::read_text_file(outbox::test::source_dir() + "/deploy/mysql-grants.sql");
    db.exec(replace_all(replace_all(sql, "`app`.", "`" + db.name() + "`."), "'outbox_",
                        "'" + prefix_ + "outbox_"));
  }
  ~GrantedAccounts() {
    for (const char* role : kRoles) {
      try {
        db_.exec("DROP USER IF EXISTS '" + user(role) + "'@'%'");
      } catch (...) {  // NOLINT(bugprone-empty-catch): best effort cleanup
      }
    }
  }
  GrantedAccounts(const GrantedAccounts&) = delete;
  GrantedAccounts& operator=(const GrantedAccounts&) = delete;

  std::string user(const std::string& role) const { return prefix_ + "outbox_" + role; }

  // SQL run by the mariadb CLI as that account.
  CommandResult run_as(const std::string& role, const std::string& sql) const {
    const outbox::MysqlEndpoint server = db_.endpoint();
    return outbox::test::run_command({"mariadb", "--no-defaults", "-N", "-B", "-h" + server.host,
                                      "-P" + std::to_string(server.port), "-u" + user(role),
                                      std::string("-p") + kPassword, db_.name()},
                                     sql);
  }

 private:
  const TestDatabase& db_;
  std::string prefix_;
};

bool denied(const CommandResult& result, const std::string& command) {
  return result.status != 0 && result.err.find("ERROR 1142") != std::string::npos &&
         result.err.find(command + " command denied") != std::string::npos;
}

// A PUBLISHED event created and published 30 days ago: past a 7d window, so purge deletes it
// and counts it in outbox_purge_log.
void insert_old_published(const TestDatabase& db, const std::string& id) {
  db.exec(
      "INSERT INTO outbox_event (event_id, aggregate_type, aggregate_id, event_type, "
      "event_version, payload, status, created_at, published_at) VALUES ('" +
      id +
      "', 'order', '1', 'ORDER_ACCEPTED', 1, '{}', 'PUBLISHED', NOW(6) - INTERVAL 30 DAY, "
      "NOW(6) - INTERVAL 30 DAY)");
}

// The config of outboxctl as the file's admin account, retention windows of 7 days.
std::string admin_config(const GrantedAccounts& accounts, const outbox::test::TempDir& dir) {
  const std::string password_file = dir.write("admin-password", std::string(kPassword) + "\n");
  return "outboxctl:\n  user: " + accounts.user("admin") + "\n  password_file: " + password_file +
         "\nretention:\n"
         "  broker_redelivery_window: 7d\n"
         "  published_after: 7d\n"
         "  consumed_after: 7d\n";
}

}  // namespace

TEST_CASE("the relay's account publishes a backlog and cannot delete", "[grants]") {
  TestDatabase db;
  const GrantedAccounts accounts(db);
  // 10 aggregates x 20 versions: per-aggregate ordering parks and wakes rows as it goes.
  db.insert_events(200, "grants", "order", 10);
  db.exec("UPDATE outbox_event SET event_version = CAST(RIGHT(event_id, 6) AS UNSIGNED)");
  outbox::test::TestBroker broker(1, 4, {"outbox.order"});
  outbox::test::RelayTestConfig settings;
  settings.mysql_user = accounts.user("relay");
  settings.mysql_password = kPassword;
  settings.batch_size = 16;
  outbox::test::RelayProcess relay(db, broker.bootstrap(), settings);
  REQUIRE(outbox::test::eventually([&] { return db.count("status = 'PUBLISHED'") == 200; }));
  outbox::test::stop_gracefully(relay);
  CHECK(outbox::test::logged(relay, "mysql " + accounts.user("relay") + "@"));
  // The one refusal it meets and expects: binlog_row_image (an optional grant), said once.
  CHECK(relay.count("binlog_row_image stays the server's on the claim sessions") == 1);
  std::istringstream lines(relay.log());
  for (std::string line; std::getline(lines, line);) {
    INFO(line);
    CHECK((line.find("denied") == std::string::npos ||
           line.find("binlog_row_image stays the server's") != std::string::npos));
  }
  CHECK(outbox::test::logged(relay, "behind older ones of their aggregate"));  // parked, woken
  CHECK(outbox::test::deliveries_by_event(broker.bootstrap(), "outbox.order").size() == 200);

  CHECK(
      denied(accounts.run_as("relay", "DELETE FROM outbox_event WHERE event_id = 'x'"), "DELETE"));
  CHECK(denied(accounts.run_as("relay",
                               "INSERT INTO outbox_event (event_id, aggregate_type, aggregate_id, "
                               "event_type, event_version, payload, status, created_at) VALUES "
                               "('x', 'o', '1', 'X', 1, '{}', 'PENDING', NOW(6))"),
               "INSERT"));
  CHECK(denied(accounts.run_as("relay", "SELECT COUNT(*) FROM orders"), "SELECT"));
  CHECK(db.count("1") == 200);
}

TEST_CASE(
    "a relay whose account may not read outbox_pause publishes and says pauses are not "
    "obeyed",
    "[grants]") {
  // An upgrade that applied sql/014 but not its grant: the relay must not wait for pauses it
  // cannot read (MySQL answers 1142 whether or not the table exists).
  TestDatabase db;
  const GrantedAccounts accounts(db);
  db.exec("REVOKE SELECT ON `" + db.name() + "`.`outbox_pause` FROM '" + accounts.user("relay") +
          "'@'%'");
  CHECK(denied(accounts.run_as("relay", "SELECT COUNT(*) FROM outbox_pause"), "SELECT"));
  db.insert_events(20, "nogrant");
  outbox::test::TestBroker broker(1, 4, {"outbox.order"});
  outbox::test::RelayTestConfig settings;
  settings.mysql_user = accounts.user("relay");
  settings.mysql_password = kPassword;
  outbox::test::RelayProcess relay(db, broker.bootstrap(), settings);
  REQUIRE(outbox::test::eventually([&] { return db.count("status = 'PUBLISHED'") == 20; }));
  CHECK(outbox::test::logged(relay, "outboxctl pause is not obeyed until"));
  CHECK(outbox::test::logged(relay, "(deploy/mysql-grants.sql; looked for again every minute)"));
  outbox::test::stop_gracefully(relay);
}

TEST_CASE("the writer and consumer accounts can do their job and nothing beyond it", "[grants]") {
  TestDatabase db;
  const GrantedAccounts accounts(db);
  const std::string event = "33333333-0000-4000-8000-000000000001";
  const auto written = accounts.run_as(
      "writer",
      "START TRANSACTION;"
      "INSERT INTO orders (id, tenant_id, request_id, acceptance_event_id, version, status, "
      "created_at) VALUES (1, 7, 'req-1', '" +
          event +
          "', 1, 'ACCEPTED', CURRENT_TIMESTAMP(6));"
          "INSERT INTO outbox_event (event_id, aggregate_type, aggregate_id, event_type, "
          "event_version, payload, status, created_at) VALUES ('" +
          event +
          "', 'order', '1', 'ORDER_ACCEPTED', 1, '{}', 'PENDING', CURRENT_TIMESTAMP(6));"
          "COMMIT;"
          "SELECT acceptance_event_id FROM orders WHERE tenant_id = 7 AND request_id = 'req-1'");
  INFO(written.err);
  CHECK(written.status == 0);
  CHECK(written.out == event + "\n");
  CHECK(
      denied(accounts.run_as("writer", "UPDATE outbox_event SET status = 'PUBLISHED'"), "UPDATE"));
  CHECK(denied(accounts.run_as("writer", "DELETE FROM orders"), "DELETE"));

  const std::string consume =
      "START TRANSACTION;"
      "INSERT INTO consumed_event (consumer_name, event_id, consumed_at) VALUES "
      "('notification-planner', '" +
      event +
      "', CURRENT_TIMESTAMP(6));"
      "INSERT INTO notification_job (event_id, order_id, source_version, status, created_at) "
      "VALUES ('" +
      event +
      "', 1, 1, 'PENDING', CURRENT_TIMESTAMP(6));"
      "COMMIT;";
  const auto consumed = accounts.run_as(
      "consumer", consume + "SELECT COUNT(*) FROM consumed_event WHERE event_id = '" + event + "'");
  INFO(consumed.err);
  CHECK(consumed.status == 0);
  CHECK(consumed.out == "1\n");
  // A redelivery: the unique key names the duplicate, with INSERT alone.
  const auto again = accounts.run_as("consumer", consume);
  CHECK(again.status != 0);
  CHECK(again.err.find("ERROR 1062") != std::string::npos);
  CHECK(again.err.find("uq_consumed_event_identity") != std::string::npos);
  CHECK(denied(accounts.run_as("consumer", "SELECT COUNT(*) FROM outbox_event"), "SELECT"));
  CHECK(denied(accounts.run_as("consumer", "DELETE FROM consumed_event"), "DELETE"));
  CHECK(db.scalar("SELECT COUNT(*) FROM notification_job") == "1");
}

TEST_CASE("outboxctl's account runs every command and cannot insert", "[grants]") {
  TestDatabase db;
  const GrantedAccounts accounts(db);
  outbox::test::TempDir dir;
  const outbox::test::Outboxctl outboxctl(db, admin_config(accounts, dir));
  db.insert_events(3, "admin");
  const std::string id = outbox::test::event_id("admin", 1);
  db.exec("UPDATE outbox_event SET status = 'FAILED' WHERE event_id <> '" +
          outbox::test::event_id("admin", 3) + "'");
  insert_old_published(db, "admin-published");
  db.exec("INSERT INTO orders VALUES (1, 7, 'req-1', '" + id +
          "', 1, 'ACCEPTED', NOW(6));"
          "INSERT INTO consumed_event (consumer_name, event_id, consumed_at) VALUES ('planner', '" +
          id + "', NOW(6) - INTERVAL 30 DAY)");
  for (const std::vector<std::string>& command :
       std::vector<std::vector<std::string>>{{"event", id},
                                             {"order", "7", "req-1"},
                                             {"consumed", "planner", id},
                                             {"backlog"},
                                             {"drain"},
                                             {"requeue", id},
                                             {"skip", outbox::test::event_id("admin", 2)},
                                             {"purge"},
                                             {"pause", "outbox.order", "--reason", "grants"},
                                             {"paused"},
                                             {"resume", "outbox.order"}}) {
    const auto result = outboxctl.run(command);
    INFO(command[0] << ": " << result.err);
    CHECK(result.status == 0);
  }
  CHECK(db.scalar("SELECT GROUP_CONCAT(status ORDER BY event_id) FROM outbox_event") ==
        "PENDING,SKIPPED,PENDING");
  CHECK(db.scalar("SELECT COUNT(*) FROM consumed_event") == "0");
  CHECK(db.scalar("SELECT CONCAT(aggregate_type, '/', event_type, ' ', purged_events) FROM "
                  "outbox_purge_log") == "order/ORDER_ACCEPTED 1");
  CHECK(denied(accounts.run_as("admin",
                               "INSERT INTO consumed_event (consumer_name, event_id, consumed_at) "
                               "VALUES ('x', 'y', NOW(6))"),
               "INSERT"));
  CHECK(denied(accounts.run_as("admin", "DELETE FROM outbox_purge_log"), "DELETE"));
}

TEST_CASE("an outboxctl account that may not write outbox_purge_log purges and says so",
          "[grants]") {
  // An upgrade that applied sql/015 but not its grant: retention must go on (and say that the
  // purged events go uncounted) rather than fail.
  TestDatabase db;
  const GrantedAccounts accounts(db);
  db.exec("REVOKE INSERT, UPDATE ON `" + db.name() + "`.`outbox_purge_log` FROM '" +
          accounts.user("admin") + "'@'%'");
  outbox::test::TempDir dir;
  const outbox::test::Outboxctl outboxctl(db, admin_config(accounts, dir));
  insert_old_published(db, "admin-published");
  const auto purged = outboxctl.run({"--json", "purge"});
  INFO(purged.err);
  CHECK(purged.status == 0);
  CHECK(outbox::test::jq("[.outbox_event.deleted, .outbox_event.purge_log] | @text", purged.out) ==
        "[1,\"not written: this account may not write outbox_purge_log (apply "
        "sql/015_outbox_purge_log.sql and its grant in deploy/mysql-grants.sql); a replay "
        "cannot count the events purged\"]");
  CHECK(db.count("1") == 0);
  CHECK(db.count_rows("outbox_purge_log") == 0);
}
