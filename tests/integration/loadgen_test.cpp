// outbox-loadgen, the writer library's example order service, as a process against the real
// MariaDB: its sessions killed mid-run (KILL CONNECTION) and one COMMIT answer lost on the wire
// after the server committed. Every order must end up accepted exactly once, with its own
// event, and each unknown outcome reconciled rather than replayed.
#include <catch2/catch.hpp>

#include <regex>

#include "child_process.hpp"
#include "poll.hpp"
#include "tcp_proxy.hpp"
#include "test_database.hpp"
#include "test_env.hpp"

using namespace std::chrono_literals;
using outbox::test::ChildProcess;
using outbox::test::eventually;
using outbox::test::TempDir;
using outbox::test::TestDatabase;

namespace {

std::vector<std::string> loadgen_args(const TestDatabase& db, int port, int orders, int rate) {
  const outbox::MysqlEndpoint endpoint = db.endpoint();
  return {outbox::test::loadgen_binary(),
          "--host",
          endpoint.host,
          "--port",
          std::to_string(port),
          "--user",
          endpoint.user,
          "--password",
          endpoint.password,
          "--database",
          endpoint.database,
          "--orders",
          std::to_string(orders),
          "--rate",
          std::to_string(rate)};
}

// A number of the summary line, e.g. figure(log, "committed") for "committed 1999".
long long figure(const std::string& log, const std::string& name) {
  const size_t at = log.rfind(" orders: committed ");
  REQUIRE(at != std::string::npos);
  const std::string summary = log.substr(log.rfind('\n', at) + 1);
  std::smatch match;
  const std::regex pattern(name + " (\\d+)");
  REQUIRE(std::regex_search(summary, match, pattern));
  return std::stoll(match[1]);
}

}  // namespace

TEST_CASE(
    "loadgen with killed sessions and a lost commit answer: every order once, unknown "
    "outcomes reconciled",
    "[loadgen][unknown]") {
  constexpr int kOrders = 2000;
  TestDatabase db;
  const outbox::MysqlEndpoint direct = db.endpoint();
  outbox::test::TcpProxy proxy(direct.host, direct.port);
  TempDir dir;
  // The 1500th commit attempt waits 10 s so that its answer can be lost after the server
  // committed. The test must see the session idle in that wait (>= 1 s: longer than any pause
  // between statements) through the mariadb CLI, one process per look, after its three kill
  // rounds. At 1,000 orders/s the last round ends about 0.7 s before that commit; with the
  // wait at 3 s, the 1000th attempt and a loaded machine, the looks came after the window in
  // two fresh-clone runs. The window is now far longer than a late look.
  ChildProcess loadgen(loadgen_args(db, proxy.port(), kOrders, 1000), dir.file("loadgen.log"),
                       {{"OUTBOX_FAILPOINTS", "writer.before_commit=sleep:10000@1500"},
                        {"OUTBOX_FAILPOINTS_I_UNDERSTAND", "this-process-will-fail-on-purpose"}});
  const std::string writer_sessions = "SELECT ID FROM information_schema.PROCESSLIST WHERE DB = '" +
                                      db.name() + "' AND ID <> CONNECTION_ID()";
  const auto orders = [&] { return std::stoll(db.scalar("SELECT COUNT(*) FROM orders")); };
  int kills = 0;
  for (long long threshold : {200LL, 500LL, 800LL}) {
    REQUIRE(eventually([&] { return orders() >= threshold; }));
    for (const auto& row : db.query(writer_sessions)) {
      try {
        db.exec("KILL CONNECTION " + row[0]);
        ++kills;
      } catch (const std::exception&) {  // NOLINT(bugprone-empty-catch): already gone
      }
    }
  }
  // The 1500th commit: both rows written, the session idle in the failpoint.
  REQUIRE(eventually(
      [&] { return !db.query(writer_sessions + " AND COMMAND = 'Sleep' AND TIME >= 1").empty(); }));
  proxy.lose_next_reply();

  const auto status = loadgen.wait_exit(120s);
  const std::string log = loadgen.output();
  INFO(log);
  REQUIRE(status.has_value());
  REQUIRE(*status == 0);
  CHECK(proxy.replies_lost() == 1);
  CHECK(kills >= 3);
  const long long unknown = figure(log, "commit outcome unknown");
  const long long found = figure(log, "found committed");
  const long long absent = figure(log, "absent and resubmitted");
  CHECK(unknown >= 4);  // each kill and the lost answer made one outcome unknown
  CHECK(found >= 1);    // the lost COMMIT answer: committed, taken from reconcile
  CHECK(found + absent == unknown);
  CHECK(figure(log, "accepted") == kOrders);  // the summary line
  // A resubmission can meet the killed session's COMMIT that landed after its reconcile read:
  // already accepted, never a second order (the counts below).
  const long long already = figure(log, "already accepted");
  CHECK(already <= absent);
  CHECK(figure(log, "committed") + found + already == kOrders);
  CHECK(log.find("reconcile found it committed as order") != std::string::npos);

  // Every order exactly once, each with its own PENDING event, nothing else.
  CHECK(db.scalar("SELECT COUNT(*) FROM orders") == std::to_string(kOrders));
  CHECK(db.scalar("SELECT COUNT(*) FROM outbox_event") == std::to_string(kOrders));
  CHECK(db.scalar("SELECT MIN(id) = 1 AND MAX(id) = " + std::to_string(kOrders) + " FROM orders") ==
        "1");
  CHECK(db.scalar("SELECT COUNT(*) FROM orders o JOIN outbox_event e ON e.event_id = "
                  "o.acceptance_event_id AND e.aggregate_id = CAST(o.id AS CHAR) AND e.status = "
                  "'PENDING'") == std::to_string(kOrders));
}

TEST_CASE("loadgen run twice with the same ids: the second run is all already accepted",
          "[loadgen]") {
  TestDatabase db;
  TempDir dir;
  for (const char* run : {"first", "second"}) {
    ChildProcess loadgen(loadgen_args(db, db.endpoint().port, 50, 0),
                         dir.file(std::string(run) + ".log"));
    const auto status = loadgen.wait_exit(60s);
    INFO(loadgen.output());
    REQUIRE(status == 0);
    const std::string log = loadgen.output();
    CHECK(figure(log, run == std::string("first") ? "committed" : "already accepted") == 50);
  }
  CHECK(db.scalar("SELECT COUNT(*) FROM outbox_event") == "50");
}
