#include "idle_cost.hpp"

#include <cppconn/statement.h>

#include <chrono>
#include <memory>
#include <thread>

namespace outbox::bench {
namespace {

std::map<std::string, double> counters(MysqlSession& session) {
  std::unique_ptr<sql::Statement> statement(session.connection().createStatement());
  std::unique_ptr<sql::ResultSet> rows(statement->executeQuery(
      "SHOW GLOBAL STATUS WHERE Variable_name IN ('Questions', 'Com_stmt_execute', 'Com_commit', "
      "'Com_select', 'Com_rollback')"));
  std::map<std::string, double> out;
  while (rows->next())
    out[rows->getString(1)] = std::stod(rows->getString(2));
  return out;
}

}  // namespace

std::map<std::string, double> measure_idle_statements(BenchContext& context, double seconds) {
  const auto before = counters(context.session);
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  const auto after = counters(context.session);
  std::map<std::string, double> rates;
  for (const auto& [name, value] : after) {
    // The measuring SHOW itself counts once in Questions.
    const double own = name == "Questions" ? 1 : 0;
    rates[name] = (value - before.at(name) - own) / seconds;
  }
  return rates;
}

}  // namespace outbox::bench
