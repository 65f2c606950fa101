#include "claim_latency.hpp"

#include <chrono>
#include <stdexcept>

#include "lease_store/lease_sql.hpp"
#include "lease_store/mysql_lease_store.hpp"

namespace outbox::bench {

Figure measure_claim_latency(BenchContext& context) {
  auto session = MysqlSession::open(context.db.endpoint(), SessionSettings{});
  if (!session) throw std::runtime_error(session.error().message);
  MysqlLeaseStore store(std::move(session).value(), ClaimPolicy{});
  Figure latencies;
  for (int i = 0; i < context.sizes.claim_samples; ++i) {
    const LeaseToken token("bench-claim", 0, static_cast<uint64_t>(i + 1));
    const auto started = std::chrono::steady_clock::now();
    Outcome<ClaimedBatch> claimed = store.claim(token, 500, std::chrono::seconds(60));
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
            .count();
    if (!claimed) throw std::runtime_error(claimed.error().message);
    latencies.runs.push_back(ms);
    std::vector<std::string> ids;
    for (const OutboxEvent& event : claimed.value().events)
      ids.push_back(event.event_id);
    if (!ids.empty() && !store.release(token, ids)) throw std::runtime_error("release failed");
  }
  return latencies;
}

std::string explain_claim_queries(BenchContext& context) {
  std::string out;
  const auto with_limit = [](std::string sql) {
    sql.replace(sql.find("LIMIT ?"), 7, "LIMIT 500");
    return sql;
  };
  for (const auto& [name, sql] : std::vector<std::pair<std::string, std::string>>{
           {"pending scan",
            lease_sql::select_pending(lease_sql::Schema(), Ordering::kPerAggregate)},
           {"expired leases",
            lease_sql::select_expired(lease_sql::Schema(), Ordering::kPerAggregate)},
           {"retry due", lease_sql::select_retry_due(lease_sql::Schema(), Ordering::kPerAggregate)},
           {"blocked recheck",
            lease_sql::select_blocked_due(lease_sql::Schema(), Ordering::kPerAggregate)}}) {
    out += "#### " + name + "\n\n```\n";
    for (const auto& row : context.db.query(context.db.explain() + with_limit(sql))) {
      // id, select_type, table, type, possible_keys, key, key_len, ref, rows, Extra; MySQL
      // adds partitions after table and filtered before Extra.
      const std::vector<size_t> shown = row.size() == 12
                                            ? std::vector<size_t>{0, 1, 2, 4, 6, 8, 9, 11}
                                            : std::vector<size_t>{0, 1, 2, 3, 5, 7, 8, 9};
      std::string line;
      for (size_t i : shown)
        line += (line.empty() ? "" : " | ") + row.at(i);
      out += line + "\n";
    }
    out += "```\n\n";
  }
  return out;
}

}  // namespace outbox::bench
