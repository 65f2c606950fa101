// outbox-loadgen: a stand-in order service for the demo. Each order is one local
// transaction: the orders row and its ORDER_ACCEPTED outbox_event row (PENDING), with a
// request id and an event id chosen before the transaction starts.
//
//   outbox-loadgen --host H --port P --user U --password W --database D
//                  [--orders N] [--rate PER_SECOND] [--tenant T] [--first-order-id ID]
// --rate 0 writes as fast as one connection can. Prints one line per second.
#include <cppconn/exception.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <random>
#include <string>
#include <thread>

#include "mysql/mysql_error.hpp"
#include "mysql/mysql_session.hpp"

namespace {

std::string random_uuid(std::mt19937_64& random) {
  const uint64_t high = (random() & 0xffffffffffff0fffULL) | 0x0000000000004000ULL;  // v4
  const uint64_t low = (random() & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;   // variant
  char text[37];
  std::snprintf(text, sizeof(text), "%08x-%04x-%04x-%04x-%012llx",
                static_cast<unsigned>(high >> 32), static_cast<unsigned>((high >> 16) & 0xffff),
                static_cast<unsigned>(high & 0xffff), static_cast<unsigned>(low >> 48),
                static_cast<unsigned long long>(low & 0xffffffffffffULL));
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> args{
      {"--host", "127.0.0.1"}, {"--port", "3306"},     {"--user", "outbox"},
      {"--password", ""},      {"--database", "demo"}, {"--orders", "10000"},
      {"--rate", "0"},         {"--tenant", "1"},      {"--first-order-id", "1"}};
  for (int i = 1; i + 1 < argc; i += 2) {
    if (args.count(argv[i]) == 0) {
      std::cerr << "unknown option " << argv[i] << "\n";
      return 64;
    }
    args[argv[i]] = argv[i + 1];
  }
  outbox::MysqlEndpoint endpoint;
  endpoint.host = args["--host"];
  endpoint.port = std::stoi(args["--port"]);
  endpoint.user = args["--user"];
  endpoint.password = args["--password"];
  endpoint.database = args["--database"];
  const long orders = std::stol(args["--orders"]);
  const double rate = std::stod(args["--rate"]);
  const long tenant = std::stol(args["--tenant"]);
  const long first_id = std::stol(args["--first-order-id"]);

  outbox::init_mysql_driver();
  auto opened = outbox::MysqlSession::open(endpoint, outbox::SessionSettings{});
  if (!opened) {
    std::cerr << opened.error().message << "\n";
    return 1;
  }
  outbox::MysqlSession& session = *opened.value();
  std::mt19937_64 random{std::random_device{}()};
  const auto started = std::chrono::steady_clock::now();
  auto next_report = started + std::chrono::seconds(1);
  long written = 0;
  for (long n = 0; n < orders; ++n) {
    if (rate > 0) {
      std::this_thread::sleep_until(started + std::chrono::duration_cast<std::chrono::nanoseconds>(
                                                  std::chrono::duration<double>(n / rate)));
    }
    const long order_id = first_id + n;
    const std::string request_id = "req-" + std::to_string(order_id);
    const std::string event_id = random_uuid(random);  // stable before the transaction
    const std::string payload = "{\"order_id\": " + std::to_string(order_id) +
                                ", \"tenant_id\": " + std::to_string(tenant) +
                                ", \"version\": 1, \"status\": \"ACCEPTED\"}";
    try {
      outbox::TransactionScope transaction(session);
      sql::PreparedStatement& order = session.prepare(
          "INSERT INTO orders (id, tenant_id, request_id, acceptance_event_id, version, status, "
          "created_at) VALUES (?, ?, ?, ?, 1, 'ACCEPTED', CURRENT_TIMESTAMP(6))");
      order.setInt64(1, order_id);
      order.setInt64(2, tenant);
      order.setString(3, request_id);
      order.setString(4, event_id);
      order.executeUpdate();
      sql::PreparedStatement& event = session.prepare(
          "INSERT INTO outbox_event (event_id, aggregate_type, aggregate_id, event_type, "
          "event_version, payload, status, created_at) VALUES (?, 'order', ?, 'ORDER_ACCEPTED', "
          "1, ?, 'PENDING', CURRENT_TIMESTAMP(6))");
      event.setString(1, event_id);
      event.setString(2, std::to_string(order_id));
      event.setString(3, payload);
      event.executeUpdate();
      transaction.commit();
      ++written;
    } catch (const sql::SQLException& e) {
      std::cerr << "order " << order_id << " (request " << request_id << ", event " << event_id
                << "): " << outbox::describe_sql_error(e) << "\n";
      return 1;
    }
    if (std::chrono::steady_clock::now() >= next_report) {
      std::cout << "written " << written << std::endl;
      next_report += std::chrono::seconds(1);
    }
  }
  std::cout << "written " << written << " (done)" << std::endl;
  return 0;
}
