#include "test_database.hpp"

#include <unistd.h>

#include <random>
#include <sstream>
#include <stdexcept>

#include "child_process.hpp"
#include "test_env.hpp"

namespace outbox::test {

TestDatabase::TestDatabase() {
  std::random_device entropy;
  name_ = "t_" + std::to_string(getpid()) + "_" + std::to_string(entropy() % 1000000);
  const MysqlEndpoint base = mysql_endpoint(name_);
  std::vector<std::string> args{source_dir() + "/scripts/apply-migrations.sh", name_};
  for (const std::string& arg : client_args())
    args.push_back(arg);
  const CommandResult result = run_command(args);
  if (result.status != 0) {
    throw std::runtime_error("applying migrations to " + name_ + " failed: " + result.err);
  }
}

TestDatabase::~TestDatabase() {
  try {
    exec("DROP DATABASE IF EXISTS `" + name_ + "`");
  } catch (...) {  // NOLINT(bugprone-empty-catch): best effort cleanup
  }
}

MysqlEndpoint TestDatabase::endpoint() const {
  return mysql_endpoint(name_);
}

std::vector<std::string> TestDatabase::client_args() const {
  const MysqlEndpoint endpoint = mysql_endpoint(name_);
  return {"-h" + endpoint.host, "-P" + std::to_string(endpoint.port), "-u" + endpoint.user,
          "-p" + endpoint.password};
}

void TestDatabase::exec(const std::string& sql) const {
  query(sql);
}

Rows TestDatabase::query(const std::string& sql) const {
  std::vector<std::string> args{"mariadb", "--no-defaults", "-N", "-B", "--raw"};
  for (const std::string& arg : client_args())
    args.push_back(arg);
  args.push_back(name_);
  const CommandResult result = run_command(args, sql);
  if (result.status != 0) throw std::runtime_error("SQL failed: " + sql + "\n" + result.err);
  Rows rows;
  std::istringstream lines(result.out);
  for (std::string line; std::getline(lines, line);) {
    std::vector<std::string> row;
    std::istringstream cells(line);
    for (std::string cell; std::getline(cells, cell, '\t');)
      row.push_back(cell);
    if (!line.empty() && line.back() == '\t') row.emplace_back();
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string TestDatabase::scalar(const std::string& sql) const {
  const Rows rows = query(sql);
  if (rows.size() != 1 || rows[0].size() != 1) {
    throw std::runtime_error("expected one value from: " + sql);
  }
  return rows[0][0];
}

long long TestDatabase::count(const std::string& where_sql) const {
  return std::stoll(scalar("SELECT COUNT(*) FROM outbox_event WHERE " + where_sql));
}

std::string mysql_section_yaml(const TestDatabase& db, int port) {
  const MysqlEndpoint endpoint = db.endpoint();
  return "mysql:\n"
         "  host: " +
         endpoint.host + "\n  port: " + std::to_string(port != 0 ? port : endpoint.port) +
         "\n  user: " + endpoint.user +
         "\n  password: ${OUTBOX_MYSQL_PASSWORD}\n  database: " + endpoint.database + "\n";
}

std::string event_id(const std::string& prefix, int i) {
  std::string number = std::to_string(i);
  const size_t width = 36 - prefix.size() - 1;
  return prefix + "-" + std::string(width - number.size(), '0') + number;
}

void TestDatabase::insert_events(int n, const std::string& prefix,
                                 const std::string& aggregate_type, int aggregates) const {
  const size_t width = 36 - prefix.size() - 1;
  // seq_1_to_N is MariaDB's sequence engine: one statement for any n. Distinct created_at
  // per row (base + i microseconds) so "created order" is the id order.
  std::ostringstream sql;
  sql << "INSERT INTO outbox_event (event_id, aggregate_type, aggregate_id, event_type, "
         "event_version, payload, status, created_at) "
      << "SELECT CONCAT('" << prefix << "-', LPAD(seq, " << width << ", '0')), '" << aggregate_type
      << "', CONCAT('agg-', seq % " << aggregates
      << "), 'ORDER_ACCEPTED', 1, JSON_OBJECT('seq', seq), 'PENDING', "
      << "CURRENT_TIMESTAMP(6) - INTERVAL 1 HOUR + INTERVAL seq MICROSECOND FROM seq_1_to_" << n;
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
      << "FROM seq_1_to_" << n;
  exec(sql.str());
}

}  // namespace outbox::test
