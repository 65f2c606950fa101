#include "lease_store/mysql_lease_store.hpp"

#include <algorithm>
#include <map>

#include "lease_store/mysql_statements.hpp"

namespace outbox {
namespace {

// The most BLOCKED versions woken with their head (relay.chain_length caps it too): about what
// one claim's chain can take next, so woken versions are chained rather than left PENDING for
// scans that would only park them again (transactional's chain_length is 1000).
constexpr size_t kMaxWokenBehindHead = 100;

}  // namespace

void MysqlLeaseStore::park(const std::vector<std::string>& ids) {
  const lease_sql::ParkBlocked park{.recheck_min = policy_.blocked_recheck_min,
                                    .recheck_max = policy_.blocked_recheck_max};
  for_each_id_chunk(ids, park,
                    [](sql::PreparedStatement& statement) { statement.executeUpdate(); });
}

Outcome<size_t> MysqlLeaseStore::wake_successors(const std::vector<std::string>& ids) {
  if (policy_.ordering != Ordering::kPerAggregate || ids.empty()) return size_t{0};
  return in_transaction<size_t>("wake blocked events", [&] {
    // Nothing is parked anywhere (the steady state): one index entry read instead of a head
    // lookup per id. Safe for the same reason the wake is: this read comes after our commit
    // (READ COMMITTED), so a park it misses committed after it, and the parker's own wake
    // check, which follows that park, sees our commit.
    {
      std::unique_ptr<sql::ResultSet> blocked(
          session_->prepare(lease_sql::any_blocked(policy_.schema)).executeQuery());
      if (!blocked->next()) return size_t{0};
    }
    // Head id -> its aggregate (type, id); a map, as chunks of `ids` may name one head twice.
    std::map<std::string, std::pair<std::string, std::string>> heads;
    for_each_id_chunk(ids, lease_sql::SelectWakeable{}, [&](sql::PreparedStatement& select) {
      std::unique_ptr<sql::ResultSet> rows(select.executeQuery());
      while (rows->next())
        heads.try_emplace(rows->getString(1), rows->getString(2), rows->getString(3));
    });
    if (heads.empty()) return size_t{0};
    std::vector<std::string> wake;
    for (const auto& [head_id, aggregate] : heads) {
      wake.push_back(head_id);
      // With chains, the BLOCKED versions right behind each woken head wake with it: the next
      // claim then takes them as its chain. Woken one at a time instead, a backlog parked
      // behind its heads (after an outage, or two claims scanning at once) drains one version
      // per aggregate per claim and mark.
      if (policy_.chain_length > 0)
        append_blocked_behind_head(head_id, aggregate.first, aggregate.second, wake);
    }
    size_t changed = 0;
    for_each_id_chunk(wake, lease_sql::WakeBlocked{}, [&](sql::PreparedStatement& statement) {
      changed += static_cast<size_t>(statement.executeUpdate());
    });
    return changed;
  });
}

Outcome<size_t> MysqlLeaseStore::wake_deferred(const std::vector<std::string>& ids) {
  if (ids.empty()) return size_t{0};
  return in_transaction<size_t>("wake held events", [&] {
    size_t changed = 0;
    for_each_id_chunk(ids, lease_sql::WakeDeferred{}, [&](sql::PreparedStatement& statement) {
      changed += static_cast<size_t>(statement.executeUpdate());
    });
    return changed;
  });
}

void MysqlLeaseStore::append_blocked_behind_head(const std::string& head_id,
                                                 const std::string& aggregate_type,
                                                 const std::string& aggregate_id,
                                                 std::vector<std::string>& wake) {
  sql::PreparedStatement& statement =
      session_->prepare(lease_sql::select_wake_chain(policy_.schema));
  StatementParameters parameters(statement);
  lease_sql::SelectChain{.aggregate_type = aggregate_type,
                         .aggregate_id = aggregate_id,
                         .limit = std::min(policy_.chain_length, kMaxWokenBehindHead) + 1}
      .bind(parameters);
  std::unique_ptr<sql::ResultSet> rows(statement.executeQuery());
  // The first row is the head itself, unless something changed the aggregate since.
  if (!rows->next() || rows->getString(1) != head_id) return;
  // The run of BLOCKED versions behind it; what comes after the first other one (in flight,
  // RETRY, FAILED) waits for that one.
  while (rows->next() && rows->getString(2) == "BLOCKED")
    wake.push_back(rows->getString(1));
}

}  // namespace outbox
