// A rotated MySQL password reaches a running relay without a restart: the account is altered
// and mysql.password_file rewritten while the relay runs; its next connection reads the file
// again. SIGHUP reports that the file holds a new password.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>
#include <catch2/catch.hpp>

#include "poll.hpp"
#include "relay_process.hpp"
#include "test_database.hpp"
#include "test_kafka.hpp"

using outbox::test::eventually;
using outbox::test::logged;
using outbox::test::RelayProcess;
using outbox::test::RelayTestConfig;
using outbox::test::TestBroker;
using outbox::test::TestDatabase;

namespace {

// An account of this test's own on its database, dropped at the end.
class RotatedAccount {
 public:
  explicit RotatedAccount(const TestDatabase& db)
      : db_(db), user_("rot" + std::to_string(getpid()) + "_" + db.name().substr(0, 8)) {
    db.exec("CREATE USER '" + user_ + "'@'%' IDENTIFIED BY 'first-password'");
    db.exec("GRANT SELECT, UPDATE ON `" + db.name() + "`.outbox_event TO '" + user_ + "'@'%'");
  }
  ~RotatedAccount() {
    try {
      db_.exec("DROP USER IF EXISTS '" + user_ + "'@'%'");
    } catch (...) {  // NOLINT(bugprone-empty-catch): best effort cleanup
    }
  }
  RotatedAccount(const RotatedAccount&) = delete;
  RotatedAccount& operator=(const RotatedAccount&) = delete;

  const std::string& user() const { return user_; }
  void alter_password(const std::string& password) const {
    db_.exec("ALTER USER '" + user_ + "'@'%' IDENTIFIED BY '" + password + "'");
  }
  // Ends every session of the account: its owner must connect again.
  void kill_sessions() const {
    for (const auto& row :
         db_.query("SELECT ID FROM information_schema.PROCESSLIST WHERE USER = '" + user_ + "'")) {
      db_.exec("KILL CONNECTION " + row[0]);
    }
  }
  long long sessions() const {
    return std::stoll(db_.scalar(
        "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE USER = '" + user_ + "'"));
  }

 private:
  const TestDatabase& db_;
  std::string user_;
};

}  // namespace

TEST_CASE("a rotated password is used from the next reconnect, and SIGHUP reports it",
          "[operations]") {
  TestDatabase db;
  TestBroker broker;
  RotatedAccount account(db);
  outbox::test::TempDir dir;
  const std::string password_file = dir.write("mysql-password", "first-password\n");
  REQUIRE(chmod(password_file.c_str(), 0600) == 0);

  RelayTestConfig settings;
  settings.mysql_user = account.user();
  settings.mysql_password_file = password_file;
  settings.backoff_max = "200ms";
  RelayProcess relay(db, broker.bootstrap(), settings);
  db.insert_events(10, "before");
  REQUIRE(eventually([&] { return db.count("status = 'PUBLISHED'") == 10; }));

  // The account changes first; the file still holds the old password. Connections the relay
  // opens now are refused: that proves it does not connect with a password kept in memory.
  account.alter_password("second-password");
  account.kill_sessions();
  db.insert_events(10, "during");
  REQUIRE(eventually([&] { return logged(relay, "Access denied"); }));
  CHECK(db.count("event_id LIKE 'during-%' AND status = 'PUBLISHED'") == 0);

  // Then the file: the next reconnect reads it, with no restart.
  dir.write("mysql-password", "second-password\n");
  relay.process().signal(SIGHUP);
  REQUIRE(eventually([&] {
    return logged(relay,
                  "SIGHUP: mysql.password_file (" + password_file + ") holds a new password");
  }));
  REQUIRE(eventually([&] { return db.count("status = 'PUBLISHED'") == 20; }));
  CHECK(account.sessions() > 0);
  CHECK(relay.log().find("second-password") == std::string::npos);
  CHECK(relay.log().find("first-password") == std::string::npos);
  outbox::test::stop_gracefully(relay);
}
