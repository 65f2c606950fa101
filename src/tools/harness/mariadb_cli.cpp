#include "harness/mariadb_cli.hpp"

#include <sstream>
#include <stdexcept>

#include "harness/child_process.hpp"

namespace outbox::harness {

MariadbCli::MariadbCli(MysqlEndpoint endpoint) : endpoint_(std::move(endpoint)) {}

std::vector<std::string> MariadbCli::client_args() const {
  std::vector<std::string> args;
  if (!endpoint_.socket.empty()) {
    args.push_back("-S" + endpoint_.socket);
  } else {
    args.push_back("-h" + endpoint_.host);
    args.push_back("-P" + std::to_string(endpoint_.port));
  }
  args.push_back("-u" + endpoint_.user);
  args.push_back("-p" + endpoint_.password);
  // A local test server, reached once per statement: MySQL offers TLS by default and the
  // client takes it, a handshake of ~50 ms of CPU per statement (MariaDB's test server offers
  // none). Measured: sql/'s migrations 1.4 s with TLS, 0.3 s without. caching_sha2_password
  // still authenticates without it (the client asks for the server's RSA key).
  args.emplace_back("--skip-ssl");
  return args;
}

void MariadbCli::exec(const std::string& sql) const {
  query(sql);
}

Rows MariadbCli::query(const std::string& sql) const {
  std::vector<std::string> args{"mariadb", "--no-defaults", "-N", "-B", "--raw"};
  for (const std::string& arg : client_args())
    args.push_back(arg);
  if (!endpoint_.database.empty()) args.push_back(endpoint_.database);
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

std::string MariadbCli::scalar(const std::string& sql) const {
  const Rows rows = query(sql);
  if (rows.size() != 1 || rows[0].size() != 1) {
    throw std::runtime_error("expected one value from: " + sql);
  }
  return rows[0][0];
}

long long MariadbCli::count(const std::string& sql) const {
  return std::stoll(scalar(sql));
}

void create_database_with_migrations(const MysqlEndpoint& server, const std::string& database,
                                     const std::string& migrations_script) {
  MysqlEndpoint without_database = server;
  without_database.database.clear();
  std::vector<std::string> args{migrations_script, database};
  for (const std::string& arg : MariadbCli(without_database).client_args())
    args.push_back(arg);
  const CommandResult result = run_command(args);
  if (result.status != 0) {
    throw std::runtime_error("applying migrations to " + database + " failed: " + result.err);
  }
}

}  // namespace outbox::harness
