#pragma once

#include <memory>
#include <optional>
#include <string>

#include "mysql/mysql_session.hpp"
#include "test_database.hpp"

namespace outbox::test {

// A session of the project's own kind (MysqlSession) to the test's database, for tests that
// drive the code under test in-process. Fails the test when it cannot connect.
std::unique_ptr<MysqlSession> open_session(const TestDatabase& db);

// The server's id of the session's connection (for KILL CONNECTION).
std::string connection_id(MysqlSession& session);

// The id of the one session of `db` (other than the asking client's) that has been idle for
// at least a second (PROCESSLIST.TIME: MySQL has no TIME_MS), e.g. waiting in a failpoint's sleep
// before its COMMIT; nullopt otherwise. Reads PROCESSLIST, not INNODB_TRX: MariaDB refreshes
// INNODB_TRX only when nobody read it in the last 100 ms, so polling it keeps it stale.
std::optional<std::string> idle_session(const TestDatabase& db);

}  // namespace outbox::test
