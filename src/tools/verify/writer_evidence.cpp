#include "writer_evidence.hpp"

#include <regex>

#include "sql_literal.hpp"

namespace outbox::verify {

std::optional<WriterSummary> writer_summary(const std::string& output) {
  static const std::regex kSummary(
      R"(accepted (\d+) orders: committed (\d+), already accepted (\d+), commit outcome unknown )"
      R"((\d+) \(reconciled: found committed (\d+), absent and resubmitted (\d+)\), rolled back )"
      R"(and retried (\d+) \((\w+)\))");
  std::smatch match;
  if (!std::regex_search(output, match, kSummary)) return std::nullopt;
  WriterSummary summary;
  summary.accepted = std::stoll(match[1]);
  summary.committed = std::stoll(match[2]);
  summary.already_accepted = std::stoll(match[3]);
  summary.unknown = std::stoll(match[4]);
  summary.reconciled_found = std::stoll(match[5]);
  summary.reconciled_absent = std::stoll(match[6]);
  summary.retried = std::stoll(match[7]);
  summary.done = match[8] == "done";
  return summary;
}

YAML::Node summary_yaml(const WriterSummary& summary) {
  YAML::Node node;
  node["accepted"] = summary.accepted;
  node["committedByItsOwnCommit"] = summary.committed;
  node["alreadyAccepted"] = summary.already_accepted;
  node["commitOutcomeUnknown"] = summary.unknown;
  node["reconciledFoundCommitted"] = summary.reconciled_found;
  node["reconciledAbsentAndResubmitted"] = summary.reconciled_absent;
  node["rolledBackAndRetried"] = summary.retried;
  return node;
}

std::optional<UnknownCommit> unknown_commit(const std::string& output) {
  static const std::regex kUnknown(
      R"(COMMIT of order \d+ \(request [^,]+, event ([^)]+)\) failed: ([^\n]*); reconciling)");
  std::smatch match;
  if (!std::regex_search(output, match, kUnknown)) return std::nullopt;
  return UnknownCommit{match[1], match[2]};
}

std::optional<std::string> session_waiting_at_commit(const harness::MariadbCli& sql,
                                                     const std::string& database, int rows) {
  // PROCESSLIST says the session is idle (in the writer's failpoint pause, not mid-statement)
  // for a second at least (TIME: MySQL has no TIME_MS);
  // INNODB_TRX says its transaction holds both rows. MariaDB refreshes INNODB_TRX only when
  // nobody read it in the last 100 ms: poll this at longer intervals.
  const harness::Rows found = sql.query(
      "SELECT p.ID FROM information_schema.PROCESSLIST p JOIN information_schema.INNODB_TRX t "
      "ON t.trx_mysql_thread_id = p.ID WHERE p.DB = " +
      sql_literal(database) + " AND p.COMMAND = 'Sleep' AND p.TIME >= 1 AND " +
      "t.trx_rows_modified = " + std::to_string(rows));
  if (found.size() != 1) return std::nullopt;
  return found[0][0];
}

DirtyOrder dirty_read_order(const harness::MariadbCli& sql, long long tenant, long long order_id) {
  const harness::Rows rows = sql.query(
      "SET SESSION TRANSACTION ISOLATION LEVEL READ UNCOMMITTED;\n"
      "SELECT (SELECT COUNT(*) FROM orders WHERE tenant_id = " +
      std::to_string(tenant) + " AND id = " + std::to_string(order_id) +
      "), COALESCE((SELECT MIN(event_id) FROM outbox_event WHERE aggregate_type = 'order' AND "
      "aggregate_id = " +
      sql_literal(std::to_string(order_id)) + "), '')");
  DirtyOrder order;
  if (rows.size() == 1 && rows[0].size() == 2) {
    order.orders = std::stoll(rows[0][0]);
    order.event_id = rows[0][1];
  }
  return order;
}

}  // namespace outbox::verify
