#include "mysql_claim_store.hpp"

#include <cppconn/exception.h>

#include <algorithm>
#include <unordered_set>

#include "claim_sql.hpp"
#include "mysql/mysql_error.hpp"

namespace outbox {
namespace {

// Fills `capacity` placeholders from ids[begin, begin + count), repeating the last id.
void bind_ids(sql::PreparedStatement& statement, unsigned first,
              const std::vector<std::string>& ids, size_t begin, size_t count, size_t capacity) {
  for (size_t i = 0; i < capacity; ++i) {
    statement.setString(first + static_cast<unsigned>(i), ids[begin + std::min(i, count - 1)]);
  }
}

std::vector<std::string> missing_from(const std::vector<std::string>& ids,
                                      const std::unordered_set<std::string>& present) {
  std::vector<std::string> out;
  for (const std::string& id : ids) {
    if (present.count(id) == 0) out.push_back(id);
  }
  return out;
}

}  // namespace

MysqlClaimStore::MysqlClaimStore(std::unique_ptr<MysqlSession> session, Micros reclaim_interval)
    : session_(std::move(session)), reclaim_interval_(reclaim_interval) {}

template <typename T, typename Body>
Outcome<T> MysqlClaimStore::in_transaction(const char* what, Body&& body) {
  try {
    TransactionScope transaction(*session_);
    T result = body();
    transaction.commit();
    return result;
  } catch (const sql::SQLException& e) {
    if (is_connection_error(e.getErrorCode())) broken_ = true;
    return Error{std::string(what) + " failed: " + describe_sql_error(e)};
  }
}

void MysqlClaimStore::scan(const std::string& sql, size_t limit, bool expired,
                           ClaimedBatch& batch) {
  sql::PreparedStatement& statement = session_->prepare(sql);
  statement.setUInt64(1, limit);
  std::unique_ptr<sql::ResultSet> rows(statement.executeQuery());
  while (rows->next()) {
    OutboxEvent event;
    event.event_id = rows->getString(1);
    event.aggregate_type = rows->getString(2);
    event.aggregate_id = rows->getString(3);
    event.event_type = rows->getString(4);
    event.event_version = rows->getInt64(5);
    event.payload = rows->getString(6);
    event.age_at_claim_us = rows->getInt64(7);
    if (expired) batch.reclaimed.push_back(event.event_id + " (was " + rows->getString(8) + ")");
    batch.events.push_back(std::move(event));
  }
}

template <typename MakeSql, typename Run>
void MysqlClaimStore::for_each_id_chunk(const std::vector<std::string>& ids, MakeSql make_sql,
                                        unsigned ids_start, Run run) {
  for (size_t begin = 0; begin < ids.size(); begin += claim_sql::kMaxIdList) {
    const size_t count = std::min(claim_sql::kMaxIdList, ids.size() - begin);
    const size_t capacity = claim_sql::id_list_capacity(count);
    sql::PreparedStatement& statement = session_->prepare(make_sql(capacity));
    bind_ids(statement, ids_start, ids, begin, count, capacity);
    run(statement, ids_start + static_cast<unsigned>(capacity));
  }
}

std::unordered_set<std::string> MysqlClaimStore::select_ids(const std::vector<std::string>& ids,
                                                            std::string (*make_sql)(size_t),
                                                            const std::string* owner) {
  std::unordered_set<std::string> found;
  for_each_id_chunk(ids, make_sql, 1, [&](sql::PreparedStatement& statement, unsigned next) {
    if (owner != nullptr) statement.setString(next, *owner);
    std::unique_ptr<sql::ResultSet> rows(statement.executeQuery());
    while (rows->next())
      found.insert(rows->getString(1));
  });
  return found;
}

Outcome<ClaimedBatch> MysqlClaimStore::claim(const LeaseToken& token, size_t limit, Micros lease) {
  return in_transaction<ClaimedBatch>("claim", [&] {
    ClaimedBatch batch{token, {}, {}};
    const auto now = std::chrono::steady_clock::now();
    const bool reclaim_due = now >= next_reclaim_scan_;
    if (reclaim_due) {
      scan(claim_sql::select_expired(), limit, true, batch);
      next_reclaim_scan_ = now + reclaim_interval_;
    }
    if (batch.events.size() < limit) {
      scan(claim_sql::select_pending(), limit - batch.events.size(), false, batch);
    }
    if (!reclaim_due && batch.events.size() < limit) {
      // A short pending scan means the backlog is drained: a good moment to look for
      // expired leases too, so an idle relay still picks up a dead peer's rows promptly.
      scan(claim_sql::select_expired(), limit - batch.events.size(), true, batch);
      next_reclaim_scan_ = now + reclaim_interval_;
    }
    if (batch.events.empty()) return batch;

    std::vector<std::string> ids;
    ids.reserve(batch.events.size());
    for (const OutboxEvent& event : batch.events)
      ids.push_back(event.event_id);
    size_t leased = 0;
    for_each_id_chunk(ids, claim_sql::lease_rows, 3,
                      [&](sql::PreparedStatement& statement, unsigned) {
                        statement.setString(1, token.value());
                        statement.setInt64(2, lease.count());
                        leased += static_cast<size_t>(statement.executeUpdate());
                      });
    if (leased != ids.size()) {
      // Impossible while we hold the row locks; refuse to publish a batch we do not own.
      throw sql::SQLException("claim leased " + std::to_string(leased) + " of " +
                              std::to_string(ids.size()) + " locked rows");
    }
    return batch;
  });
}

Outcome<LeaseUpdateResult> MysqlClaimStore::mark_published(const LeaseToken& token,
                                                           const std::vector<std::string>& ids) {
  return in_transaction<LeaseUpdateResult>("mark published", [&] {
    LeaseUpdateResult result;
    if (ids.empty()) return result;
    for_each_id_chunk(ids, claim_sql::mark_published, 2,
                      [&](sql::PreparedStatement& statement, unsigned next) {
                        statement.setString(1, token.value());
                        statement.setString(next, token.value());
                        result.changed += static_cast<size_t>(statement.executeUpdate());
                      });
    if (result.changed < ids.size()) {
      // Some rows were not ours any more. published_by tells our marks (including those of an
      // earlier attempt whose commit outcome was unknown) from rows another claim now owns.
      result.lease_lost =
          missing_from(ids, select_ids(ids, claim_sql::select_marked_by, &token.value()));
    }
    return result;
  });
}

Outcome<LeaseUpdateResult> MysqlClaimStore::release(const LeaseToken& token,
                                                    const std::vector<std::string>& ids) {
  return in_transaction<LeaseUpdateResult>("release", [&] {
    LeaseUpdateResult result;
    if (ids.empty()) return result;
    for_each_id_chunk(ids, claim_sql::release, 1,
                      [&](sql::PreparedStatement& statement, unsigned next) {
                        statement.setString(next, token.value());
                        result.changed += static_cast<size_t>(statement.executeUpdate());
                      });
    if (result.changed < ids.size()) {
      // Rows we released are locked by this transaction, so they read PENDING and unleased;
      // anything else is leased to (or published by) another claim.
      result.lease_lost = missing_from(ids, select_ids(ids, claim_sql::select_released, nullptr));
    }
    return result;
  });
}

}  // namespace outbox
