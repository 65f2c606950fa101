#include "test_session.hpp"

#include <catch2/catch.hpp>

namespace outbox::test {

std::unique_ptr<MysqlSession> open_session(const TestDatabase& db) {
  init_mysql_driver();
  auto session = MysqlSession::open(db.endpoint(), SessionSettings{});
  if (!session) FAIL(session.error().message);
  return std::move(session).value();
}

std::string connection_id(MysqlSession& session) {
  const std::unique_ptr<sql::ResultSet> rows(
      session.prepare("SELECT CONNECTION_ID()").executeQuery());
  rows->next();
  const std::string id = rows->getString(1);
  session.rollback_quietly();
  return id;
}

std::optional<std::string> idle_session(const TestDatabase& db) {
  const Rows rows =
      db.query("SELECT ID FROM information_schema.PROCESSLIST WHERE DB = '" + db.name() +
               "' AND ID <> CONNECTION_ID() AND COMMAND = 'Sleep' AND "
               "TIME >= 1");
  if (rows.size() != 1) return std::nullopt;
  return rows[0][0];
}

}  // namespace outbox::test
