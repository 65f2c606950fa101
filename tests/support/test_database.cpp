#include "test_database.hpp"

#include <unistd.h>

#include <random>
#include <sstream>
#include <stdexcept>

#include "harness/sequence_rows.hpp"
#include "harness/service_configs.hpp"
#include "test_env.hpp"

namespace outbox::test {

namespace {

std::string fresh_name() {
  std::random_device entropy;
  return "t_" + std::to_string(getpid()) + "_" + std::to_string(entropy() % 1000000);
}

MysqlEndpoint on_database(MysqlEndpoint server, const std::string& database) {
  server.database = database;
  return server;
}

}  // namespace

TestDatabase::TestDatabase() : TestDatabase(mysql_endpoint("")) {}

TestDatabase::TestDatabase(const MysqlEndpoint& server)
    : name_(fresh_name()), endpoint_(on_database(server, name_)), cli_(endpoint_) {
  harness::create_database_with_migrations(cli_.endpoint(), name_,
                                           source_dir() + "/scripts/apply-migrations.sh");
}

TestDatabase::~TestDatabase() {
  try {
    exec("DROP DATABASE IF EXISTS `" + name_ + "`");
  } catch (...) {  // NOLINT(bugprone-empty-catch): best effort cleanup
  }
}

MysqlEndpoint TestDatabase::endpoint() const {
  return endpoint_;
}

bool TestDatabase::on_mysql() const {
  return scalar("SELECT VERSION() NOT LIKE '%MariaDB%'") == "1";
}

std::string TestDatabase::server_name() const {
  return on_mysql() ? "MySQL" : "MariaDB";
}

std::string TestDatabase::duplicate_key(const std::string& table, const std::string& key) const {
  return on_mysql() ? "'" + table + "." + key + "'" : "'" + key + "'";
}

std::string TestDatabase::explain() const {
  return on_mysql() ? "EXPLAIN FORMAT=TRADITIONAL " : "EXPLAIN ";
}

std::string TestDatabase::stored_json(const std::string& json) const {
  if (!on_mysql()) return json;
  // The document goes in as a hex literal: no quoting of its bytes to get wrong.
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (const char c : json) {
    const auto byte = static_cast<unsigned char>(c);
    hex += kHex[byte >> 4];
    hex += kHex[byte & 0xf];
  }
  return scalar("SELECT CAST(CAST(CONVERT(X'" + hex + "' USING utf8mb4) AS JSON) AS CHAR)");
}

void TestDatabase::exec(const std::string& sql) const {
  cli_.exec(sql);
}

Rows TestDatabase::query(const std::string& sql) const {
  return cli_.query(sql);
}

std::string TestDatabase::scalar(const std::string& sql) const {
  return cli_.scalar(sql);
}

long long TestDatabase::count(const std::string& where_sql) const {
  return count_rows("outbox_event", where_sql);
}

long long TestDatabase::count_rows(const std::string& table, const std::string& where_sql) const {
  return std::stoll(scalar("SELECT COUNT(*) FROM " + table + " WHERE " + where_sql));
}

std::string mysql_section_yaml(const TestDatabase& db, int port) {
  MysqlEndpoint endpoint = db.endpoint();
  if (port != 0) endpoint.port = port;
  return harness::mysql_section_yaml(endpoint, "password: ${OUTBOX_MYSQL_PASSWORD}");
}

std::string event_id(const std::string& prefix, int i) {
  std::string number = std::to_string(i);
  const size_t width = 36 - prefix.size() - 1;
  return prefix + "-" + std::string(width - number.size(), '0') + number;
}

void TestDatabase::insert_events(int n, const std::string& prefix,
                                 const std::string& aggregate_type, int aggregates) const {
  const size_t width = 36 - prefix.size() - 1;
  // One statement for any n (harness::sequence_rows). Distinct created_at per row (base + i
  // microseconds) so "created order" is the id order.
  std::ostringstream sql;
  sql << "INSERT INTO outbox_event (event_id, aggregate_type, aggregate_id, event_type, "
         "event_version, payload, status, created_at) "
      << "SELECT CONCAT('" << prefix << "-', LPAD(seq, " << width << ", '0')), '" << aggregate_type
      << "', CONCAT('agg-', seq % " << aggregates
      << "), 'ORDER_ACCEPTED', 1, JSON_OBJECT('seq', seq), 'PENDING', "
      << "CURRENT_TIMESTAMP(6) - INTERVAL 1 HOUR + INTERVAL seq MICROSECOND FROM "
      << harness::sequence_rows(1, n);
  exec(sql.str());
}

void TestDatabase::insert_versioned_events(const std::string& prefix, int aggregates,
                                           int first_version, int last_version) const {
  const size_t width = 36 - prefix.size() - 1;
  const long long first = static_cast<long long>(first_version - 1) * aggregates + 1;
  const long long last = static_cast<long long>(last_version) * aggregates;
  std::ostringstream sql;
  sql << "INSERT INTO outbox_event (event_id, aggregate_type, aggregate_id, event_type, "
         "event_version, payload, status, created_at) "
      << "SELECT CONCAT('" << prefix << "-', LPAD(seq, " << width << ", '0')), 'order', "
      << "CONCAT('agg-', (seq - 1) % " << aggregates << "), 'ORDER_CHANGED', (seq - 1) DIV "
      << aggregates << " + 1, JSON_OBJECT('seq', seq), 'PENDING', "
      << "CURRENT_TIMESTAMP(6) - INTERVAL 1 HOUR + INTERVAL seq MICROSECOND FROM "
      << harness::sequence_rows(first, last);
  exec(sql.str());
}

void TestDatabase::insert_order_accepted_events(int n, const std::string& prefix) const {
  const size_t width = 36 - prefix.size() - 1;
  std::ostringstream sql;
  sql << "INSERT INTO outbox_event (event_id, aggregate_type, aggregate_id, event_type, "
         "event_version, payload, status, created_at) "
      << "SELECT CONCAT('" << prefix << "-', LPAD(seq, " << width << ", '0')), 'order', seq, "
      << "'ORDER_ACCEPTED', 1, JSON_OBJECT('order_id', seq, 'tenant_id', 1, 'version', 1), "
      << "'PENDING', CURRENT_TIMESTAMP(6) - INTERVAL 1 HOUR + INTERVAL seq MICROSECOND "
      << "FROM " << harness::sequence_rows(1, n);
  exec(sql.str());
}

}  // namespace outbox::test
