#pragma once

#include <string>
#include <vector>

#include "mysql/mysql_endpoint.hpp"

namespace outbox::harness {

using Rows = std::vector<std::vector<std::string>>;

// SQL through the mariadb command-line client: an independent client, so what a test or
// outbox-verify reports about the database never rests only on the code under test.
class MariadbCli {
 public:
  // endpoint.database may be empty (server-wide statements).
  explicit MariadbCli(MysqlEndpoint endpoint);

  // Runs SQL; throws std::runtime_error with the client's error text on failure.
  void exec(const std::string& sql) const;
  Rows query(const std::string& sql) const;
  // The single value of a one-row, one-column query.
  std::string scalar(const std::string& sql) const;
  long long count(const std::string& sql) const;  // scalar() as a number

  const MysqlEndpoint& endpoint() const { return endpoint_; }
  // -h -P -u -p (or -S) for another invocation of the client or of apply-migrations.sh.
  std::vector<std::string> client_args() const;

 private:
  MysqlEndpoint endpoint_;
};

// Creates `database` (if missing) and applies sql/ with the project's own migration script,
// the way an operator does. Throws with the script's error output on failure.
void create_database_with_migrations(const MysqlEndpoint& server, const std::string& database,
                                     const std::string& migrations_script);

}  // namespace outbox::harness
