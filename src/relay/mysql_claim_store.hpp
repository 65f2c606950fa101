#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <unordered_set>

#include "claim_store.hpp"
#include "mysql/mysql_session.hpp"

namespace outbox {

// ClaimStore over one MySQL session (one per worker). The SQL is in claim_sql.*.
class MysqlClaimStore final : public ClaimStore {
 public:
  // Expired leases are rare (a relay died or stalled), so their scan runs at most once per
  // `reclaim_interval`, plus whenever the pending scan comes back short.
  MysqlClaimStore(std::unique_ptr<MysqlSession> session, Micros reclaim_interval);

  Outcome<ClaimedBatch> claim(const LeaseToken& token, size_t limit, Micros lease) override;
  Outcome<LeaseUpdateResult> mark_published(const LeaseToken& token,
                                            const std::vector<std::string>& ids) override;
  Outcome<LeaseUpdateResult> release(const LeaseToken& token,
                                     const std::vector<std::string>& ids) override;
  bool connected() const override { return !broken_; }

 private:
  // Runs body in one transaction; converts SQL errors into an Error naming `what`, and marks
  // the session broken when the connection itself failed.
  template <typename T, typename Body>
  Outcome<T> in_transaction(const char* what, Body&& body);

  // Appends rows of an executed claim scan to the batch.
  void scan(const std::string& sql, size_t limit, bool expired, ClaimedBatch& batch);

  // Prepares make_sql(capacity) for each chunk of ids, binds the chunk from parameter
  // ids_start on, then calls run(statement, index after the id list) to bind the rest and
  // execute.
  template <typename MakeSql, typename Run>
  void for_each_id_chunk(const std::vector<std::string>& ids, MakeSql make_sql, unsigned ids_start,
                         Run run);

  // The subset of ids that a select_* statement (ids, then optionally the owner) returns.
  std::unordered_set<std::string> select_ids(const std::vector<std::string>& ids,
                                             std::string (*make_sql)(size_t),
                                             const std::string* owner);

  std::unique_ptr<MysqlSession> session_;
  Micros reclaim_interval_;
  std::chrono::steady_clock::time_point next_reclaim_scan_{};
  bool broken_ = false;
};

}  // namespace outbox
