#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <unordered_set>

#include "lease_store/lease_sql.hpp"
#include "lease_store/lease_store.hpp"
#include "mysql/mysql_session.hpp"
#include "poll_schedule.hpp"
#include "settings/relay_settings.hpp"

namespace outbox {

// last_error's column width; longer error texts are cut.
inline constexpr size_t kMaxLastErrorLength = 1024;

// An error text as last_error can always store it: printable ASCII only (any other byte as
// \xNN, so a text cut inside a UTF-8 character, or in a column whose character set cannot hold
// it, can never make the failure itself unrecordable), at most kMaxLastErrorLength characters.
std::string storable_error(const std::string& text);

// How claims pick rows and how failures are recorded. The relay.* settings among these default
// to relay.*'s defaults (relay_settings.hpp), so the two cannot drift.
struct ClaimPolicy {
  // The outbox table and the message columns the scans read (mysql.table, kafka.*).
  lease_sql::Schema schema;
  Ordering ordering = Ordering::kPerAggregate;
  // Expired leases, finished backoffs and BLOCKED rechecks are looked for at most this often:
  // they are rare, and an idle relay should not pay for their scans on every poll. Workers of
  // one process share `due_scans`, so the interval holds per process; without one, each store
  // keeps its own.
  Micros due_scan_interval = relay_defaults().reclaim_interval;
  std::shared_ptr<DueScanSchedule> due_scans;
  int max_attempts = relay_defaults().max_attempts;
  // A row whose lease expired unsettled this many times is parked as FAILED by the claim that
  // finds it expired again, instead of being taken over once more.
  int max_lease_expiries = relay_defaults().max_lease_expiries;
  // A BLOCKED row is woken when the event before it is published; as a safety net (a relay
  // that died between its mark and its wake check) it is also rechecked after age / 10, within
  // these bounds.
  Micros blocked_recheck_min = std::chrono::seconds(1);
  Micros blocked_recheck_max = std::chrono::seconds(60);
  Micros retry_backoff_initial = relay_defaults().retry_backoff_initial;
  Micros retry_backoff_max = relay_defaults().retry_backoff_max;
  // Per-aggregate ordering (relay.chain_length): a claim takes up to this many PENDING
  // versions right behind each claimed head of an aggregate, sent one after another as the
  // broker acknowledges each (chained_deliveries.hpp). 0: heads only, the rest wait.
  size_t chain_length = 0;
};

// LeaseStore over one MySQL session (one per worker). The SQL is in lease_sql.*.
class MysqlLeaseStore final : public LeaseStore {
 public:
  MysqlLeaseStore(std::unique_ptr<MysqlSession> session, ClaimPolicy policy);

  Outcome<ClaimedBatch> claim(const LeaseToken& token, size_t limit, Micros lease,
                              const PayloadAllowance& bytes = {}) override;
  Outcome<MarkResult> mark_published(const LeaseToken& token,
                                     const std::vector<std::string>& ids) override;
  Outcome<LeaseUpdateResult> release(const LeaseToken& token,
                                     const std::vector<std::string>& ids) override;
  Outcome<LeaseUpdateResult> record_failure(const LeaseToken& token,
                                            const std::vector<std::string>& ids,
                                            const PublishFailure& failure) override;
  Outcome<LeaseUpdateResult> defer(const LeaseToken& token, const std::vector<std::string>& ids,
                                   Micros delay, const std::string& error) override;
  Outcome<LeaseUpdateResult> hold(const LeaseToken& token, const std::vector<std::string>& ids,
                                  const std::string& error) override;
  Outcome<size_t> wake_successors(const std::vector<std::string>& ids) override;
  Outcome<size_t> wake_deferred(const std::vector<std::string>& ids) override;
  bool known_broken() const override { return !session_problem_.empty(); }
  std::string session_problem() const override { return session_problem_; }

 private:
  // Whether policy_.schema knows which of the columns it reads are JSON on this server
  // (lease_sql::Schema::read_json_as_text): read once, by the first claim.
  bool column_types_read_ = false;
  // Runs body in one transaction; converts SQL errors into an Error naming `what`, and marks
  // the session broken when the connection itself failed.
  template <typename T, typename Body>
  Outcome<T> in_transaction(const char* what, Body&& body);

  enum class ScanKind { kPending, kExpired, kRetryDue };
  // Appends the rows of one claim scan to the batch (while their payloads fit `bytes`; returns
  // false once one did not), or to `to_park` when an older event of their aggregate is
  // unpublished. The payloads themselves are fetched later (fetch_payloads).
  bool scan(ScanKind kind, size_t limit, const PayloadAllowance& bytes, ClaimedBatch& batch,
            std::vector<std::string>& to_park);
  // Per-aggregate chains: appends, for each head the scans found with later unpublished
  // events (chain_heads_), the PENDING versions right behind it, up to `limit` rows in all and
  // while their payloads fit, recording each one's predecessor in batch.after. A row the
  // scan was going to park is taken out of `to_park`.
  void take_chains(size_t limit, const PayloadAllowance& bytes, ClaimedBatch& batch,
                   std::vector<std::string>& to_park);
  // After the head of an aggregate was found to wake: appends the BLOCKED versions right
  // behind it, up to relay.chain_length, to `wake`.
  void append_blocked_behind_head(const std::string& head_id, const std::string& aggregate_type,
                                  const std::string& aggregate_id, std::vector<std::string>& wake);
  // How many rows the PENDING scan reads for `room` rows of claim: with chains, about one head
  // per expected chain, so the window is not filled with heads that leave no room for the
  // versions behind them.
  size_t pending_scan_limit(size_t room) const;
  // Reads the payloads of the leased events, a few MiB per statement.
  void fetch_payloads(std::vector<OutboxEvent>& events);
  // The safety net: wakes due BLOCKED rows that are free; collects those still held back by a
  // live event (rechecked later) and those held back by a FAILED one (never rechecked).
  void recheck_blocked(size_t limit, std::vector<std::string>& still_blocked,
                       std::vector<std::string>& behind_failed);
  // Parks rows as BLOCKED (they must be locked by this transaction).
  void park(const std::vector<std::string>& ids);

  // Runs an id-list statement (a lease_sql binder: its SQL and its other values) once per
  // chunk of at most kMaxIdList ids: prepares Statement::sql(capacity), binds the chunk, and
  // hands the prepared statement to run(statement) to execute.
  template <typename Statement, typename Run>
  void for_each_id_chunk(const std::vector<std::string>& ids, const Statement& statement, Run run);

  // The subset of ids that an id-list SELECT returns (its first column).
  template <typename Statement>
  std::unordered_set<std::string> select_ids(const std::vector<std::string>& ids,
                                             const Statement& statement);

  std::unique_ptr<MysqlSession> session_;
  ClaimPolicy policy_;
  std::string session_problem_;  // set by the error that made the session unusable
  // Indices into the claim's batch of the heads its scans found with later unpublished
  // events (ClaimState::kClaimableHead); reset by each claim.
  std::vector<size_t> chain_heads_;
  // What pending_scan_limit() expects of the next PENDING scan, as moving averages of recent
  // claims: the share of claimed heads with later events (0 at first, so a backlog of one
  // event per aggregate is scanned a whole window at a time) and how many rows a chain had
  // when the claim had room for a whole one.
  double head_share_ = 0;
  double rows_per_chain_ = 0;
};

}  // namespace outbox
