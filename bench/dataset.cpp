#include "dataset.hpp"

#include <algorithm>

namespace outbox::bench {

void clear_outbox(BenchContext& context) {
  context.db.exec("TRUNCATE TABLE outbox_event");
}

void load_events(BenchContext& context, const std::string& prefix, long count,
                 const std::string& status, long aggregates) {
  constexpr long kSlice = 1'000'000;
  const std::string aggregate =
      aggregates > 0 ? "(seq % " + std::to_string(aggregates) + ")" : "seq";
  const std::string published = status == "PUBLISHED" ? "CURRENT_TIMESTAMP(6)" : "NULL";
  for (long first = 0; first < count; first += kSlice) {
    const long slice = std::min(kSlice, count - first);
    context.db.exec(
        "SET SESSION sql_log_bin = 0; "
        "INSERT INTO outbox_event (event_id, aggregate_type, aggregate_id, event_type, "
        "event_version, payload, status, created_at, published_at) SELECT CONCAT('" +
        prefix + "-', seq + " + std::to_string(first) + "), 'order', CONCAT('agg-', " + aggregate +
        " + " + std::to_string(first) +
        "), 'ORDER_ACCEPTED', 1, CONCAT('{\"order_id\": ', seq, ', \"tenant_id\": 7, "
        "\"version\": 1, \"status\": \"ACCEPTED\", \"total_cents\": 12990, \"currency\": "
        "\"EUR\", \"items\": 3}'), '" +
        status + "', CURRENT_TIMESTAMP(6) - INTERVAL 1 HOUR + INTERVAL (seq + " +
        std::to_string(first) + ") MICROSECOND, " + published + " FROM seq_1_to_" +
        std::to_string(slice));
  }
  context.db.exec("ANALYZE TABLE outbox_event");
}

bool outbox_drained(BenchContext& context) {
  sql::PreparedStatement& statement = context.session.prepare(
      "SELECT 1 FROM outbox_event FORCE INDEX (idx_outbox_pending) WHERE status IN "
      "('PENDING', 'PUBLISHING', 'RETRY', 'BLOCKED') LIMIT 1");
  std::unique_ptr<sql::ResultSet> rows(statement.executeQuery());
  const bool drained = !rows->next();
  rows.reset();
  context.session.commit();
  return drained;
}

double published_rate(BenchContext& context) {
  sql::PreparedStatement& statement = context.session.prepare(
      "SELECT COUNT(*), TIMESTAMPDIFF(MICROSECOND, MIN(published_at), MAX(published_at)) "
      "FROM outbox_event WHERE status = 'PUBLISHED'");
  std::unique_ptr<sql::ResultSet> rows(statement.executeQuery());
  rows->next();
  const double count = static_cast<double>(rows->getInt64(1));
  const double micros = static_cast<double>(rows->getInt64(2));
  rows.reset();
  context.session.commit();
  return micros > 0 ? count / (micros / 1e6) : 0;
}

}  // namespace outbox::bench
