// A server that stops accepting writes (a failover demotes it, or SET GLOBAL read_only=ON):
// the relay says so on /readyz and in its log, its workers back off, nothing is lost, and it
// resumes by itself once the server is writable again. The test runs a MariaDB server of its
// own: SET GLOBAL on the shared test server would hit every test running beside it.
#include <unistd.h>
#include <catch2/catch.hpp>

#include <chrono>

#include "http_scrape.hpp"
#include "poll.hpp"
#include "programs.hpp"
#include "relay_process.hpp"
#include "soak_server.hpp"
#include "test_database.hpp"
#include "test_env.hpp"
#include "test_kafka.hpp"

using namespace std::chrono_literals;
using outbox::test::eventually;
using outbox::test::http_get;
using outbox::test::HttpAnswer;
using outbox::test::logged;
using outbox::test::TestDatabase;

namespace {

constexpr const char* kRelayUser = "ro_relay";
constexpr const char* kRelayPassword = "ro-relay-password";

// The relay's account as deploy/mysql-grants.sql grants it: SELECT and UPDATE on the outbox,
// no SUPER or READ ONLY ADMIN, so read_only applies to it.
void create_relay_account(const TestDatabase& db) {
  db.exec(std::string("CREATE USER '") + kRelayUser + "'@'%' IDENTIFIED BY '" + kRelayPassword +
          "'");
  db.exec("GRANT SELECT, UPDATE ON `" + db.name() + "`.outbox_event TO '" + kRelayUser + "'@'%'");
}

}  // namespace

TEST_CASE("a read-only server: not ready with the reason and nothing lost until it is writable",
          "[faults][read-only]") {
  outbox::test::TempDir dir;
  const outbox::verify::SoakServer server(outbox::verify::Programs::of_this_build().server_script,
                                          dir.path() + "/server");
  const TestDatabase db(server.endpoint());
  create_relay_account(db);
  outbox::test::TestBroker broker(3, 8, {"outbox.order"});
  outbox::test::RelayTestConfig settings;
  settings.mysql_user = kRelayUser;
  settings.mysql_password = kRelayPassword;
  settings.backoff_max = "500ms";
  outbox::test::RelayProcess relay(db, broker.bootstrap(), settings);
  const int port = relay.metrics_port();
  db.insert_events(50, "writable");
  REQUIRE(eventually([&] { return db.count("status = 'PUBLISHED'") == 50; }));
  REQUIRE(eventually([&] { return http_get(port, "/readyz").status == 200; }));

  // The failover: the server refuses the relay's writes (error 1290). The test's own account
  // has every privilege and still writes: the application keeps committing events.
  db.exec("SET GLOBAL read_only = ON");
  db.insert_events(50, "read-only");
  HttpAnswer ready;
  const bool said_why = eventually(
      [&] {
        ready = http_get(port, "/readyz");
        return ready.status == 503 && ready.body.rfind("mysql: read-only (error 1290)", 0) == 0;
      },
      30s);
  INFO("/readyz: " << ready.status << " " << ready.body);
  REQUIRE(said_why);
  // Not ready while it lasts, whoever asked the database last (workers, backlog monitor).
  CHECK(outbox::test::answers_other_than(port, "/readyz", 503, 3s) == "");  // 3 backlog queries
  CHECK(logged(relay, "mysql: read-only (error 1290)"));
  CHECK(logged(relay, "retrying in"));
  CHECK(db.count("event_id LIKE 'read-only-%' AND status = 'PENDING' AND lease_owner IS NULL") ==
        50);
  // A relay that starts now waits, and says why, instead of reporting ready.
  outbox::test::RelayProcess booting(db, broker.bootstrap(), settings);
  const int booting_port = booting.metrics_port();
  REQUIRE(eventually([&] {
    return http_get(booting_port, "/readyz")
               .body.rfind("starting: waiting for MySQL: mysql: read-only (error 1290)", 0) == 0;
  }));
  CHECK_FALSE(logged(booting, "relay running"));

  // Writable again: ready, and every event is published without anyone stepping in.
  db.exec("SET GLOBAL read_only = OFF");
  REQUIRE(eventually([&] { return db.count("status = 'PUBLISHED'") == 100; }));
  REQUIRE(eventually([&] { return http_get(port, "/readyz").status == 200; }));
  REQUIRE(eventually([&] { return http_get(booting_port, "/readyz").status == 200; }));
  outbox::test::stop_gracefully(relay);
  outbox::test::stop_gracefully(booting);
  const auto deliveries = outbox::test::deliveries_by_event(broker.bootstrap(), "outbox.order");
  CHECK(deliveries.size() == 100);
}
