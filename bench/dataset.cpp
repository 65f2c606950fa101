#include "dataset.hpp"

#include <algorithm>
#include <stdexcept>

#include "harness/sequence_rows.hpp"

namespace outbox::bench {

void clear_outbox(BenchContext& context) {
  context.db.exec("TRUNCATE TABLE outbox_event");
}

namespace {

// INSERT ... SELECT of rows `<prefix>-<first + seq>`, seq 1..rows (harness::sequence_rows, on
// either server); `aggregate`, `version` and `created_at` are SQL over seq.
std::string insert_rows(const std::string& prefix, const std::string& first, long rows,
                        const std::string& aggregate, const std::string& version,
                        const std::string& status, const std::string& created_at,
                        const std::string& published_at) {
  return "INSERT INTO outbox_event (event_id, aggregate_type, aggregate_id, event_type, "
         "event_version, payload, status, created_at, published_at) SELECT CONCAT('" +
         prefix + "-', seq + " + first + "), 'order', CONCAT('agg-', " + aggregate + " + " + first +
         "), 'ORDER_ACCEPTED', " + version +
         ", CONCAT('{\"order_id\": ', seq, ', \"tenant_id\": 7, "
         "\"version\": 1, \"status\": \"ACCEPTED\", \"total_cents\": 12990, \"currency\": "
         "\"EUR\", \"items\": 3}'), '" +
         status + "', " + created_at + ", " + published_at + " FROM " +
         harness::sequence_rows(1, rows);
}

}  // namespace

void load_events(BenchContext& context, const std::string& prefix, long count,
                 const std::string& status, long aggregates) {
  constexpr long kSlice = 1'000'000;
  const std::string aggregate =
      aggregates > 0 ? "(seq % " + std::to_string(aggregates) + ")" : "seq";
  // Spread over aggregates, each aggregate's rows are its versions 1, 2, 3... in created_at
  // order, as a writer appends them (the shape of a backlog after an outage).
  const std::string published = status == "PUBLISHED" ? "CURRENT_TIMESTAMP(6)" : "NULL";
  for (long first = 0; first < count; first += kSlice) {
    const long slice = std::min(kSlice, count - first);
    const std::string offset = std::to_string(first);
    const std::string version =
        aggregates > 0 ? "((seq + " + offset + ") DIV " + std::to_string(aggregates) + " + 1)"
                       : "1";
    context.db.exec("SET SESSION sql_log_bin = 0; " +
                    insert_rows(prefix, offset, slice, aggregate, version, status,
                                "CURRENT_TIMESTAMP(6) - INTERVAL 1 HOUR + INTERVAL (seq + " +
                                    offset + ") MICROSECOND",
                                published));
  }
  context.db.exec("ANALYZE TABLE outbox_event");
}

void commit_events(BenchContext& context, const std::string& prefix, long count) {
  constexpr long kRowsPerTransaction = 100;
  if (count % kRowsPerTransaction != 0) {
    throw std::invalid_argument("commit_events: count must be a multiple of 100");
  }
  // One client call: a script of INSERTs that autocommit one by one, so the binary log holds
  // count / 100 transactions. (A compound statement would be shorter, but MySQL has them only
  // inside stored programs.)
  std::string script;
  for (long done = 0; done < count; done += kRowsPerTransaction) {
    script += insert_rows(prefix, std::to_string(done), kRowsPerTransaction, "seq", "1", "PENDING",
                          "CURRENT_TIMESTAMP(6)", "NULL");
    script += ";\n";
  }
  context.db.exec(script);
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
