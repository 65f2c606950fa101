#pragma once

#include <string>
#include <vector>

#include "harness/mariadb_cli.hpp"
#include "mysql/mysql_endpoint.hpp"

namespace outbox::test {

using harness::Rows;

// A database of its own for one test, with the migrations of sql/ applied by the project's
// own script. Queries go through the mariadb command-line client: an independent client,
// so a test never verifies the database only through the code under test.
class TestDatabase {
 public:
  // On the server the test command started.
  TestDatabase();
  // On another server (a test's private one); server.database is ignored.
  explicit TestDatabase(const MysqlEndpoint& server);
  ~TestDatabase();
  TestDatabase(const TestDatabase&) = delete;
  TestDatabase& operator=(const TestDatabase&) = delete;

  const std::string& name() const { return name_; }
  MysqlEndpoint endpoint() const;
  // Whether the server is MySQL rather than MariaDB (VERSION() says "MariaDB" on MariaDB): for
  // the few answers that differ between them, e.g. MySQL's normalised JSON.
  bool on_mysql() const;
  // "MySQL" or "MariaDB", for reports and messages.
  std::string server_name() const;
  // How error 1062 names `key` of `table` on this server: 'table.key' on MySQL, 'key' on
  // MariaDB, quotes included.
  std::string duplicate_key(const std::string& table, const std::string& key) const;
  // What a JSON column holds after `json` was written to it: the same bytes on MariaDB (JSON is
  // LONGTEXT there); MySQL's normalised text of it (keys sorted by length then bytes, one space
  // after ':' and ','), which is what reading the column gives back.
  std::string stored_json(const std::string& json) const;
  // "EXPLAIN " in its classic tabular form: MySQL 9 prints a tree unless asked
  // (FORMAT=TRADITIONAL), which MariaDB does not know.
  std::string explain() const;

  // Runs SQL; throws with the client's error text on failure.
  void exec(const std::string& sql) const;
  Rows query(const std::string& sql) const;
  // The single value of a one-row, one-column query.
  std::string scalar(const std::string& sql) const;
  long long count(const std::string& where_sql) const;  // rows of outbox_event matching
  // Rows of `table` (a table or a join) matching `where_sql`.
  long long count_rows(const std::string& table, const std::string& where_sql = "1") const;

  // n PENDING events, ids "<prefix>-<000001..>" (36 chars wide), aggregate_id cycling over
  // `aggregates` values, created in id order.
  void insert_events(int n, const std::string& prefix, const std::string& aggregate_type = "order",
                     int aggregates = 100) const;
  // Versions first_version..last_version of each of `aggregates` aggregates "agg-0".. of type
  // order, version-major (every aggregate's version v before any v+1, as writers committing
  // versions one after another would), PENDING, event type ORDER_CHANGED, payload {"seq": s}.
  // Ids "<prefix>-<s>" as event_id(prefix, s) with s = (version - 1) * aggregates + a + 1, so
  // successive calls for later versions continue the same sequence.
  void insert_versioned_events(const std::string& prefix, int aggregates, int first_version,
                               int last_version) const;
  // n PENDING ORDER_ACCEPTED events as the writer stores them: ids as insert_events, aggregate
  // id = order id = 1..n, payload {"order_id": i, "tenant_id": 1, "version": 1}.
  void insert_order_accepted_events(int n, const std::string& prefix) const;

 private:
  std::string name_;
  MysqlEndpoint endpoint_;
  harness::MariadbCli cli_;
};

// The `mysql:` section of a config file for a program under test that connects to `db` (the
// password from ${OUTBOX_MYSQL_PASSWORD}); `port` 0 is the server's own, else e.g. a proxy's.
std::string mysql_section_yaml(const TestDatabase& db, int port = 0);

// Event id for index i (1-based) of insert_events(prefix): "<prefix>-" padded to 36 chars.
std::string event_id(const std::string& prefix, int i);

}  // namespace outbox::test
