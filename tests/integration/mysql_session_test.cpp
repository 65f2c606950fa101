// MysqlSession's transaction ends against a real MariaDB, where a commit's outcome decides
// whether the writer reports COMMITTED and whether the consumer acknowledges a message.
#include <catch2/catch.hpp>

#include <cppconn/exception.h>

#include "mysql/mysql_session.hpp"
#include "test_database.hpp"
#include "test_session.hpp"

using outbox::MysqlSession;
using outbox::test::connection_id;
using outbox::test::open_session;
using outbox::test::TestDatabase;

namespace {

void insert_event(MysqlSession& session, const std::string& id) {
  session.execute(
      "INSERT INTO outbox_event (event_id, aggregate_type, aggregate_id, event_type, "
      "event_version, payload, status, created_at) VALUES ('" +
      id + "', 'order', '1', 'ORDER_ACCEPTED', 1, '{}', 'PENDING', CURRENT_TIMESTAMP(6))");
}

}  // namespace

// Connector/C++ 1.1.12's own Connection::commit() returns normally here (the reason
// MysqlSession sends COMMIT as a statement): without this, a lost transaction would be
// reported as committed.
TEST_CASE("commit on a connection the server killed throws, and nothing is committed",
          "[mysql-session]") {
  TestDatabase db;
  auto session = open_session(db);
  insert_event(*session, "killed-before-commit");
  db.exec("KILL CONNECTION " + connection_id(*session));
  try {
    session->commit();
    FAIL("commit returned normally on a killed connection");
  } catch (const sql::SQLException& e) {
    CHECK(e.getErrorCode() == 2013);
  }
  CHECK(db.count("event_id = 'killed-before-commit'") == 0);
}

TEST_CASE("rollback reports whether the server confirmed it", "[mysql-session]") {
  TestDatabase db;
  auto session = open_session(db);
  insert_event(*session, "rolled-back");
  CHECK(session->rollback());
  CHECK(db.count("event_id = 'rolled-back'") == 0);

  insert_event(*session, "killed-before-rollback");
  db.exec("KILL CONNECTION " + connection_id(*session));
  const outbox::Status rolled_back = session->rollback();
  REQUIRE_FALSE(rolled_back);
  CHECK(rolled_back.error().message.find("MySQL error 2013") != std::string::npos);
}
