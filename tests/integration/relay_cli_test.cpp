// The outbox-relay binary's command line: exact messages and exit codes, as an operator or
// systemd (RestartPreventExitStatus=78) sees them.
#include <catch2/catch.hpp>

#include "child_process.hpp"
#include "test_database.hpp"
#include "test_env.hpp"

using outbox::test::run_command;
using outbox::test::TempDir;

TEST_CASE("check-config reports every problem with file:line and exits 78", "[cli]") {
  TempDir dir;
  const std::string file = dir.write("relay.yaml",
                                     "mysql:\n"
                                     "  user: relay\n"
                                     "  database: app\n"
                                     "  password: ${OUTBOX_TEST_UNSET_VARIABLE}\n"
                                     "kafka:\n"
                                     "  bootstrap_servers: k:9092\n"
                                     "relay:\n"
                                     "  workers: 0\n"
                                     "  lease: 1 minute\n");
  const auto result = run_command({outbox::test::relay_binary(), "--check-config", file});
  CHECK(result.status == 78);
  CHECK(result.out.empty());
  CHECK(result.err ==
        file + ":4: mysql.password: environment variable OUTBOX_TEST_UNSET_VARIABLE is not set\n" +
            file + ":8: relay.workers: must be between 1 and 64, got 0\n" + file +
            ":9: relay.lease: must be a duration like 30s or 50ms (units us, ms, s, m, h, d), "
            "got \"1 minute\"\n");
}

TEST_CASE("an invalid config file given to --config file exits 78 before connecting anywhere",
          "[cli]") {
  TempDir dir;
  const std::string file = dir.write("relay.yaml", "mysql:\n  user: relay\n");
  const auto result = run_command({outbox::test::relay_binary(), "--config", file});
  CHECK(result.status == 78);
  CHECK(result.err == file + ":1: mysql.database: is required\n" + file +
                          ":1: kafka.bootstrap_servers: is required\n");
}

TEST_CASE("a missing config file exits 78 naming it", "[cli]") {
  const auto result =
      run_command({outbox::test::relay_binary(), "--check-config", "/nonexistent/relay.yaml"});
  CHECK(result.status == 78);
  CHECK(result.err == "/nonexistent/relay.yaml: cannot read file: No such file or directory\n");
}

TEST_CASE("a valid file passes --check-config and --print-config hides secrets", "[cli]") {
  TempDir dir;
  const std::string file = dir.write("relay.yaml",
                                     "mysql:\n"
                                     "  user: relay\n"
                                     "  password: very-secret-pw\n"
                                     "  database: app\n"
                                     "kafka:\n"
                                     "  bootstrap_servers: k:9092\n"
                                     "  properties:\n"
                                     "    sasl.password: kafka-secret-pw\n");
  const auto check = run_command({outbox::test::relay_binary(), "--check-config", file});
  CHECK(check.status == 0);
  CHECK(check.out == file + ": configuration is valid\n");
  const auto printed = run_command({outbox::test::relay_binary(), "--print-config", file});
  CHECK(printed.status == 0);
  CHECK(printed.out.find("very-secret-pw") == std::string::npos);
  CHECK(printed.out.find("kafka-secret-pw") == std::string::npos);
  CHECK(printed.out.find("acks: all") != std::string::npos);
  CHECK(printed.out.find("enable.idempotence: true") != std::string::npos);
}

TEST_CASE("the example config is valid as shipped", "[cli]") {
  const auto result = run_command({outbox::test::relay_binary(), "--check-config",
                                   outbox::test::source_dir() + "/config/relay.example.yaml"});
  CHECK(result.status == 0);
}

TEST_CASE("version output names the linked libraries and bad usage exits 64", "[cli]") {
  const auto version = run_command({outbox::test::relay_binary(), "--version"});
  CHECK(version.status == 0);
  CHECK(version.out.rfind("outbox-relay ", 0) == 0);
  CHECK(version.out.find("librdkafka 2.") != std::string::npos);
  CHECK(version.out.find("MySQL Connector/C++ 1.1.") != std::string::npos);
  const auto usage = run_command({outbox::test::relay_binary(), "--bogus"});
  CHECK(usage.status == 64);
  CHECK(usage.err.find("usage: outbox-relay --config FILE") != std::string::npos);
}

// --check-db: what the relay would find at start-up, once, without claiming anything. Read
// against the server from outside: the version it names is VERSION() through the mariadb CLI.
TEST_CASE("check-db names the server it found, and why it would wait or refuse", "[cli]") {
  outbox::test::TestDatabase db;
  TempDir dir;
  const std::string config = outbox::test::mysql_section_yaml(db) +
                             "kafka:\n"
                             "  bootstrap_servers: 127.0.0.1:1\n";
  const std::string file = dir.write("relay.yaml", config);

  const auto ready = run_command({outbox::test::relay_binary(), "--check-db", file});
  INFO(ready.out << ready.err);
  CHECK(ready.status == 0);
  CHECK(ready.out.find(" ready, no TLS (mode disabled): MySQL " + db.scalar("SELECT VERSION()") +
                       ", binlog ROW, table "
                       "outbox_event") != std::string::npos);
  // MySQL's JSON payload is sent as its normalised text, and the line says so; MariaDB's JSON is
  // LONGTEXT.
  CHECK((ready.out.find("payload JSON (sent as the server's normalised text") !=
         std::string::npos) == db.on_mysql());
  CHECK(ready.err.empty());  // no warning: every row's status is one of the relay's

  // Rows with a status the relay does not know (an adopted table): still ready, with a warning
  // that counts them, instead of a relay that silently never publishes them.
  db.insert_events(3, "legacy");
  db.exec("UPDATE outbox_event SET status = 'LEGACY' WHERE event_id LIKE 'legacy-%'");
  db.exec("UPDATE outbox_event SET status = 'ARCHIVED' WHERE event_id = '" +
          outbox::test::event_id("legacy", 3) + "'");
  const auto warned = run_command({outbox::test::relay_binary(), "--check-db", file});
  INFO(warned.out << warned.err);
  CHECK(warned.status == 0);
  CHECK(warned.err ==
        "warning: table outbox_event: 3 events with a status the relay does not know ('ARCHIVED': "
        "1, 'LEGACY': 2): they are never published, and with per-aggregate ordering each holds "
        "its aggregate's later events back; give them a status of the relay's (PENDING to "
        "publish, SKIPPED to give up)\n");

  // A configured column the table lacks: the relay would refuse to start.
  const std::string keyed = dir.write("keyed.yaml", config + "  key_column: no_such_column\n");
  const auto refused = run_command({outbox::test::relay_binary(), "--check-db", keyed});
  CHECK(refused.status == 78);
  CHECK(refused.err.find("has no column no_such_column") != std::string::npos);

  // No outbox table (yet): the relay would wait for the migrations.
  db.exec("DROP TABLE outbox_event");
  const auto waiting = run_command({outbox::test::relay_binary(), "--check-db", file});
  CHECK(waiting.status == 69);
  CHECK(waiting.err.find("not ready: the outbox schema (table outbox_event) is missing") !=
        std::string::npos);
}
