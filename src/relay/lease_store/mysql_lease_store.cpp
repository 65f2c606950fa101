#include "lease_store/mysql_lease_store.hpp"

#include <cppconn/exception.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

#include "lease_store/lease_sql.hpp"
#include "lease_store/table_columns.hpp"
#include "mysql/mysql_error.hpp"

namespace outbox {
namespace {

// The claim's own consistency check failed: not a database or connection error, so it must
// not be reported as one (nor make the session look broken).
class ClaimInconsistency : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Binds a statement's parameters in the order its lease_sql binder gives them.
class StatementParameters final : public lease_sql::Parameters {
 public:
  explicit StatementParameters(sql::PreparedStatement& statement) : statement_(statement) {}
  void text(const std::string& value) override { statement_.setString(next_++, value); }
  void integer(int64_t value) override { statement_.setInt64(next_++, value); }
  void count(uint64_t value) override { statement_.setUInt64(next_++, value); }

 private:
  sql::PreparedStatement& statement_;
  unsigned next_ = 1;
};

std::vector<std::string> missing_from(const std::vector<std::string>& ids,
                                      const std::unordered_set<std::string>& present) {
  std::vector<std::string> out;
  for (const std::string& id : ids) {
    if (present.count(id) == 0) out.push_back(id);
  }
  return out;
}

// The columns every claim scan and select_chain read (lease_sql::ScanColumn), without the
// payload.
OutboxEvent read_event(sql::ResultSet& rows, size_t message_columns) {
  using Column = lease_sql::ScanColumn;
  OutboxEvent event;
  event.event_id = rows.getString(Column::kEventId);
  event.aggregate_type = rows.getString(Column::kAggregateType);
  event.aggregate_id = rows.getString(Column::kAggregateId);
  event.event_type = rows.getString(Column::kEventType);
  event.event_version = rows.getInt64(Column::kEventVersion);
  event.payload_bytes = rows.getUInt64(Column::kPayloadBytes);
  event.age_at_claim_us = rows.getInt64(Column::kAgeUs);
  event.attempts = rows.getInt(Column::kAttempts);
  event.columns.reserve(message_columns);
  for (unsigned i = 0; i < message_columns; ++i) {
    const unsigned column = Column::kFirstMessageColumn + i;
    event.columns.push_back(rows.isNull(column)
                                ? std::nullopt
                                : std::optional<std::string>(std::string(rows.getString(column))));
  }
  return event;
}

// The most BLOCKED versions woken with their head (relay.chain_length caps it too): about what
// one claim's chain can take next, so woken versions are chained rather than left PENDING for
// scans that would only park them again (transactional's chain_length is 1000).
constexpr size_t kMaxWokenBehindHead = 100;

}  // namespace

std::string storable_error(const std::string& text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(std::min(text.size(), kMaxLastErrorLength));
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    const bool printable = byte >= 0x20 && byte < 0x7f;
    const size_t width = printable ? 1 : 4;
    if (out.size() + width > kMaxLastErrorLength) break;
    if (printable) {
      out.push_back(c);
    } else {
      out += "\\x";
      out.push_back(kHex[byte >> 4]);
      out.push_back(kHex[byte & 0xf]);
    }
  }
  return out;
}

MysqlLeaseStore::MysqlLeaseStore(std::unique_ptr<MysqlSession> session, ClaimPolicy policy)
    : session_(std::move(session)), policy_(std::move(policy)) {
  if (!policy_.due_scans) {
    policy_.due_scans = std::make_shared<DueScanSchedule>(policy_.due_scan_interval);
  }
}

template <typename T, typename Body>
Outcome<T> MysqlLeaseStore::in_transaction(const char* what, Body&& body) {
  try {
    TransactionScope transaction(*session_);
    T result = body();
    transaction.commit();
    return result;
  } catch (const sql::SQLException& e) {
    std::string error = std::string(what) + " failed: " + describe_sql_error(e);
    if (needs_new_session(e.getErrorCode())) {
      // For /readyz: the condition and the step, not the server's words (the returned error,
      // which the worker logs, has them).
      session_problem_ = session_condition(e.getErrorCode()) + ": " + what + " failed";
    }
    return Error{std::move(error)};
  } catch (const ClaimInconsistency& e) {
    return Error{std::string(what) + " failed: " + e.what() + " (rolled back)"};
  }
}

bool MysqlLeaseStore::scan(ScanKind kind, size_t limit, const PayloadAllowance& bytes,
                           ClaimedBatch& batch, std::vector<std::string>& to_park) {
  bool fits = true;
  std::vector<std::string> reclaimed;  // expired leases taken over
  std::vector<std::string> unsettled;  // expired once too often: FAILED instead
  const lease_sql::Schema& schema = policy_.schema;
  const bool chains = policy_.chain_length > 0;
  const std::string sql =
      kind == ScanKind::kPending   ? lease_sql::select_pending(schema, policy_.ordering, chains)
      : kind == ScanKind::kExpired ? lease_sql::select_expired(schema, policy_.ordering, chains)
                                   : lease_sql::select_retry_due(schema, policy_.ordering, chains);
  using Column = lease_sql::ScanColumn;
  sql::PreparedStatement& statement = session_->prepare(sql);
  StatementParameters parameters(statement);
  lease_sql::ScanLimit{limit}.bind(parameters);
  std::unique_ptr<sql::ResultSet> rows(statement.executeQuery());
  // Aggregates with a row left waiting by this scan: a later row of one of them is at least
  // two versions behind the one in flight, so it is parked, and one busy aggregate cannot fill
  // every later scan's window with rows that wait.
  std::unordered_set<std::string> waiting_aggregates;
  // Rows left waiting stay in the scan's range. Beyond half the window they are parked like
  // the others, so the window still moves on when many events stay in flight for a long time
  // (a stalled relay's batches until their leases end) and the aggregates behind them flow; a
  // claim of one row leaves none waiting. Only PENDING rows wait: an expired or retried row
  // is parked as before, which also ends its old lease.
  const size_t waiting_cap = kind == ScanKind::kPending ? limit / 2 : 0;
  while (rows->next()) {
    const int state = rows->getInt(Column::kClaimState);
    // Left as it is: parking it would write a row that is simply not known yet, and the next
    // claim judges it in order.
    if (state == lease_sql::ClaimState::kNewerThanSnapshot) continue;
    if (state == lease_sql::ClaimState::kWaiting && batch.waiting < waiting_cap) {
      std::string aggregate = rows->getString(Column::kAggregateType);
      aggregate += '\0';
      aggregate += rows->getString(Column::kAggregateId);
      if (waiting_aggregates.insert(std::move(aggregate)).second) {
        ++batch.waiting;
        continue;
      }
    }
    const bool head = state == lease_sql::ClaimState::kClaimableHead;
    if (state != lease_sql::ClaimState::kClaimable && !head) {
      to_park.push_back(rows->getString(Column::kEventId));
      continue;
    }
    OutboxEvent event = read_event(*rows, policy_.schema.message_columns().size());
    std::string previous_owner;
    if (kind == ScanKind::kExpired) {
      const int expiries = rows->getInt(Column::kLeaseExpiries) + 1;
      previous_owner = rows->getString(Column::kPreviousOwner);
      if (expiries >= policy_.max_lease_expiries) {
        batch.failed_unsettled_notes.push_back(event.event_id + " (lease expired " +
                                               std::to_string(expiries) + " times, last owner " +
                                               previous_owner + ")");
        unsettled.push_back(std::move(event.event_id));
        continue;
      }
    }
    // Rows are taken in claim order while their payloads fit; the first one however large
    // when nothing else is in flight. The rest stay as they are (their locks end with the
    // claim) for a later claim.
    const bool first = batch.events.empty();
    if (batch.budget_bytes + event.budget_bytes() > bytes.bytes && !(first && bytes.alone)) {
      fits = false;
      break;
    }
    if (kind == ScanKind::kExpired) {
      batch.reclaimed_notes.push_back(event.event_id + " (was " + previous_owner + ")");
      reclaimed.push_back(event.event_id);
    } else if (kind == ScanKind::kRetryDue) {
      ++batch.retried;
    }
    batch.budget_bytes += event.budget_bytes();
    if (head) chain_heads_.push_back(batch.events.size());
    batch.events.push_back(std::move(event));
  }
  rows.reset();
  if (!reclaimed.empty()) {
    for_each_id_chunk(reclaimed, lease_sql::CountLeaseExpiry{},
                      [](sql::PreparedStatement& count) { count.executeUpdate(); });
  }
  if (!unsettled.empty()) {
    const std::string reason =
        "its lease expired " + std::to_string(policy_.max_lease_expiries) +
        " times without a relay settling it (relay.max_lease_expiries); last error: ";
    for_each_id_chunk(unsettled, lease_sql::FailUnsettled{.reason = reason},
                      [](sql::PreparedStatement& fail) { fail.executeUpdate(); });
  }
  return fits;
}

size_t MysqlLeaseStore::pending_scan_limit(size_t room) const {
  if (policy_.chain_length == 0) return room;
  // Until a chain ended on its own, a guess: a scan that filled the batch with heads would
  // leave no room for any chain, and so never learn how long chains are.
  constexpr double kFirstChainGuess = 7;
  const double chain = rows_per_chain_ > 0
                           ? rows_per_chain_
                           : std::min(static_cast<double>(policy_.chain_length), kFirstChainGuess);
  const double rows_per_head = 1 + head_share_ * chain;
  const auto heads = static_cast<size_t>(static_cast<double>(room) / rows_per_head);
  return std::clamp<size_t>(heads + 1, 1, room);
}

void MysqlLeaseStore::take_chains(size_t limit, const PayloadAllowance& bytes, ClaimedBatch& batch,
                                  std::vector<std::string>& to_park) {
  std::unordered_set<std::string> chained;
  sql::PreparedStatement& statement = session_->prepare(lease_sql::select_chain(policy_.schema));
  for (const size_t head : chain_heads_) {
    if (batch.events.size() >= limit) break;
    // The versions this chain may take: its length, or what room the batch has left.
    const size_t allowed = std::min(policy_.chain_length, limit - batch.events.size());
    const size_t chained_before = batch.chained;
    // Copies: the batch grows below.
    const std::string head_id = batch.events[head].event_id;
    const std::string aggregate_type = batch.events[head].aggregate_type;
    const std::string aggregate_id = batch.events[head].aggregate_id;
    StatementParameters parameters(statement);
    lease_sql::SelectChain{
        .aggregate_type = aggregate_type, .aggregate_id = aggregate_id, .limit = allowed + 1}
        .bind(parameters);
    std::unique_ptr<sql::ResultSet> rows;
    try {
      rows.reset(statement.executeQuery());
    } catch (const sql::SQLException& e) {
      // Another claim holds a row of this aggregate right now (its scan's window): the head
      // goes alone, the versions behind it wait for a later claim.
      if (!is_lock_not_granted(e.getErrorCode())) throw;
      continue;
    }
    using Column = lease_sql::ScanColumn;
    // The head is the aggregate's oldest unpublished event (it was claimable): the first row.
    if (!rows->next() || rows->getString(Column::kEventId) != head_id) continue;
    size_t predecessor = head;
    while (rows->next()) {
      // A chain ends at the first version that is not PENDING (in flight, RETRY, BLOCKED,
      // FAILED): what comes after it waits for that one.
      if (rows->getInt(Column::kClaimState) != lease_sql::ClaimState::kClaimable) break;
      OutboxEvent event = read_event(*rows, policy_.schema.message_columns().size());
      if (batch.budget_bytes + event.budget_bytes() > bytes.bytes) break;
      if (batch.after.empty()) {
        batch.after.resize(batch.events.size());
        for (size_t i = 0; i < batch.after.size(); ++i)
          batch.after[i] = i;
      }
      chained.insert(event.event_id);
      batch.budget_bytes += event.budget_bytes();
      batch.after.push_back(predecessor);
      predecessor = batch.events.size();
      batch.events.push_back(std::move(event));
      ++batch.chained;
    }
    // A chain that ended on its own (or at relay.chain_length) says how long chains are; one
    // cut short by the batch's room says only that they are at least that long. Without the
    // distinction a chain_length above the batch size never learned a length, and every
    // claim scanned a whole window of heads with no room left for their chains.
    const size_t taken = batch.chained - chained_before;
    if (taken < allowed || allowed == policy_.chain_length) {
      const auto sample = static_cast<double>(taken);
      rows_per_chain_ = rows_per_chain_ == 0 ? sample : (rows_per_chain_ * 7 + sample) / 8;
    }
  }
  // A version right behind a head in the scan's own window read as held back by it.
  if (!chained.empty()) {
    std::erase_if(to_park, [&](const std::string& id) { return chained.count(id) != 0; });
  }
}

void MysqlLeaseStore::recheck_blocked(size_t limit, std::vector<std::string>& still_blocked,
                                      std::vector<std::string>& behind_failed) {
  sql::PreparedStatement& statement =
      session_->prepare(lease_sql::select_blocked_due(policy_.schema, policy_.ordering));
  StatementParameters parameters(statement);
  lease_sql::ScanLimit{limit}.bind(parameters);
  std::unique_ptr<sql::ResultSet> rows(statement.executeQuery());
  std::vector<std::string> free;
  using Column = lease_sql::BlockedDueColumn;
  while (rows->next()) {
    std::vector<std::string>& list = rows->getInt(Column::kBlocked) == 0           ? free
                                     : rows->getInt(Column::kBlockedByFailed) != 0 ? behind_failed
                                                                                   : still_blocked;
    list.push_back(rows->getString(Column::kEventId));
  }
  rows.reset();
  if (free.empty()) return;
  // A wakeup that a crash between a mark and its wake check lost: this safety net finds it.
  spdlog::info("{} blocked events found free on recheck: back to PENDING", free.size());
  for_each_id_chunk(free, lease_sql::WakeBlocked{},
                    [](sql::PreparedStatement& wake) { wake.executeUpdate(); });
}

void MysqlLeaseStore::park(const std::vector<std::string>& ids) {
  const lease_sql::ParkBlocked park{.recheck_min = policy_.blocked_recheck_min,
                                    .recheck_max = policy_.blocked_recheck_max};
  for_each_id_chunk(ids, park,
                    [](sql::PreparedStatement& statement) { statement.executeUpdate(); });
}

template <typename Statement, typename Run>
void MysqlLeaseStore::for_each_id_chunk(const std::vector<std::string>& ids,
                                        const Statement& statement, Run run) {
  for (size_t begin = 0; begin < ids.size(); begin += lease_sql::kMaxIdList) {
    const size_t count = std::min(lease_sql::kMaxIdList, ids.size() - begin);
    const lease_sql::IdChunk chunk{ids, begin, count, lease_sql::id_list_capacity(count)};
    sql::PreparedStatement& prepared =
        session_->prepare(Statement::sql(policy_.schema, chunk.capacity));
    StatementParameters parameters(prepared);
    statement.bind(parameters, chunk);
    run(prepared);
  }
}

template <typename Statement>
std::unordered_set<std::string> MysqlLeaseStore::select_ids(const std::vector<std::string>& ids,
                                                            const Statement& statement) {
  std::unordered_set<std::string> found;
  for_each_id_chunk(ids, statement, [&](sql::PreparedStatement& select) {
    std::unique_ptr<sql::ResultSet> rows(select.executeQuery());
    while (rows->next())
      found.insert(rows->getString(1));
  });
  return found;
}

void MysqlLeaseStore::fetch_payloads(std::vector<OutboxEvent>& events) {
  // A few MiB per statement: the client library buffers a whole result, so this bounds what it
  // holds beside the payloads themselves (or one row, when a single one is larger).
  constexpr uint64_t kFetchBytes = 4 << 20;
  std::unordered_map<std::string, OutboxEvent*> by_id;
  for (OutboxEvent& event : events)
    by_id.emplace(event.event_id, &event);
  size_t begin = 0;
  while (begin < events.size()) {
    size_t end = begin;
    uint64_t chunk_bytes = 0;
    while (end < events.size() && end - begin < lease_sql::kMaxIdList &&
           (end == begin || chunk_bytes + events[end].payload_bytes <= kFetchBytes)) {
      chunk_bytes += events[end].payload_bytes;
      ++end;
    }
    std::vector<std::string> ids;
    ids.reserve(end - begin);
    for (size_t i = begin; i < end; ++i)
      ids.push_back(events[i].event_id);
    for_each_id_chunk(ids, lease_sql::SelectPayloads{}, [&](sql::PreparedStatement& select) {
      std::unique_ptr<sql::ResultSet> rows(select.executeQuery());
      while (rows->next()) {
        const auto found = by_id.find(rows->getString(1));
        if (found != by_id.end()) found->second->payload = rows->getString(2);
      }
    });
    begin = end;
  }
}

Outcome<ClaimedBatch> MysqlLeaseStore::claim(const LeaseToken& token, size_t limit, Micros lease,
                                             const PayloadAllowance& bytes) {
  return in_transaction<ClaimedBatch>("claim", [&] {
    if (!column_types_read_) {
      policy_.schema.read_json_as_text(json_columns(*session_, policy_.schema.table_name()));
      column_types_read_ = true;
    }
    ClaimedBatch batch(token);
    chain_heads_.clear();
    std::vector<std::string>& parked = batch.parked;
    bool fits = true;
    if (policy_.due_scans->take_turn()) {
      fits = scan(ScanKind::kExpired, limit, bytes, batch, parked);
      if (fits && batch.events.size() < limit) {
        fits = scan(ScanKind::kRetryDue, limit - batch.events.size(), bytes, batch, parked);
      }
      // Still held back: parked again with a later recheck, but not reported as newly parked
      // (nothing changed for them, so there is nothing to wake).
      std::vector<std::string> still_blocked;
      std::vector<std::string> behind_failed;
      recheck_blocked(limit, still_blocked, behind_failed);
      if (!still_blocked.empty()) park(still_blocked);
      if (!behind_failed.empty()) {
        for_each_id_chunk(behind_failed, lease_sql::ParkBehindFailed{},
                          [](sql::PreparedStatement& statement) { statement.executeUpdate(); });
      }
    }
    const size_t before_pending = batch.events.size();
    if (fits && batch.events.size() < limit) {
      scan(ScanKind::kPending, pending_scan_limit(limit - batch.events.size()), bytes, batch,
           parked);
    }
    if (!chain_heads_.empty()) take_chains(limit, bytes, batch, parked);
    const size_t pending_heads = batch.events.size() - batch.chained - before_pending;
    if (policy_.chain_length > 0 && pending_heads > 0) {
      // Each claim halves the weight of what came before: a backlog's shape changes as it
      // drains (many versions per aggregate after an outage, one each in steady state).
      const double share =
          static_cast<double>(chain_heads_.size()) / static_cast<double>(pending_heads);
      head_share_ = (head_share_ + std::min(share, 1.0)) / 2;
    }
    // Rows held back by an older event of their aggregate leave the PENDING range, so later
    // claims never read them again (claim cost stays O(batch)); a mark of that older event
    // wakes them.
    if (!parked.empty()) park(parked);
    if (batch.events.empty()) return batch;

    std::vector<std::string> ids;
    ids.reserve(batch.events.size());
    for (const OutboxEvent& event : batch.events)
      ids.push_back(event.event_id);
    size_t leased = 0;
    for_each_id_chunk(ids, lease_sql::LeaseRows{.owner = token.value(), .lease = lease},
                      [&](sql::PreparedStatement& statement) {
                        leased += static_cast<size_t>(statement.executeUpdate());
                      });
    if (leased != ids.size()) {
      // Impossible while we hold the row locks; refuse to publish a batch we do not own.
      throw ClaimInconsistency("claim leased " + std::to_string(leased) + " of " +
                               std::to_string(ids.size()) + " rows it had locked");
    }
    fetch_payloads(batch.events);
    return batch;
  });
}

Outcome<size_t> MysqlLeaseStore::wake_successors(const std::vector<std::string>& ids) {
  if (policy_.ordering != Ordering::kPerAggregate || ids.empty()) return size_t{0};
  return in_transaction<size_t>("wake blocked events", [&] {
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

Outcome<MarkResult> MysqlLeaseStore::mark_published(const LeaseToken& token,
                                                    const std::vector<std::string>& ids) {
  return in_transaction<MarkResult>("mark published", [&] {
    MarkResult result;
    if (ids.empty()) return result;
    for_each_id_chunk(ids, lease_sql::MarkPublished{.owner = token.value()},
                      [&](sql::PreparedStatement& statement) {
                        result.changed += static_cast<size_t>(statement.executeUpdate());
                      });
    if (result.changed < ids.size()) {
      // Some rows were not ours any more. published_by tells our marks (including those of an
      // earlier attempt whose commit outcome was unknown) from rows another claim now owns.
      result.refused =
          missing_from(ids, select_ids(ids, lease_sql::SelectMarkedBy{.owner = token.value()}));
    }
    return result;
  });
}

Outcome<LeaseUpdateResult> MysqlLeaseStore::release(const LeaseToken& token,
                                                    const std::vector<std::string>& ids) {
  return in_transaction<LeaseUpdateResult>("release", [&] {
    LeaseUpdateResult result;
    if (ids.empty()) return result;
    for_each_id_chunk(ids, lease_sql::Release{.owner = token.value()},
                      [&](sql::PreparedStatement& statement) {
                        result.changed += static_cast<size_t>(statement.executeUpdate());
                      });
    if (result.changed < ids.size()) {
      // Rows we released are locked by this transaction, so they read PENDING and unleased;
      // anything else is leased to (or published by) another claim.
      result.no_longer_leased = missing_from(ids, select_ids(ids, lease_sql::SelectReleased{}));
    }
    return result;
  });
}

Outcome<LeaseUpdateResult> MysqlLeaseStore::defer(const LeaseToken& token,
                                                  const std::vector<std::string>& ids, Micros delay,
                                                  const std::string& error) {
  const std::string stored = storable_error(error);
  return in_transaction<LeaseUpdateResult>("defer", [&] {
    LeaseUpdateResult result;
    if (ids.empty()) return result;
    result.no_longer_leased =
        missing_from(ids, select_ids(ids, lease_sql::SelectHeldBy{.owner = token.value()}));
    for_each_id_chunk(
        ids,
        lease_sql::RecordDeferral{.delay = delay, .last_error = stored, .owner = token.value()},
        [&](sql::PreparedStatement& statement) {
          result.changed += static_cast<size_t>(statement.executeUpdate());
        });
    return result;
  });
}

Outcome<LeaseUpdateResult> MysqlLeaseStore::hold(const LeaseToken& token,
                                                 const std::vector<std::string>& ids,
                                                 const std::string& error) {
  const std::string stored = storable_error(error);
  return in_transaction<LeaseUpdateResult>("hold", [&] {
    LeaseUpdateResult result;
    if (ids.empty()) return result;
    result.no_longer_leased =
        missing_from(ids, select_ids(ids, lease_sql::SelectHeldBy{.owner = token.value()}));
    for_each_id_chunk(ids, lease_sql::RecordHold{.last_error = stored, .owner = token.value()},
                      [&](sql::PreparedStatement& statement) {
                        result.changed += static_cast<size_t>(statement.executeUpdate());
                      });
    return result;
  });
}

Outcome<LeaseUpdateResult> MysqlLeaseStore::record_failure(const LeaseToken& token,
                                                           const std::vector<std::string>& ids,
                                                           const PublishFailure& failure) {
  // last_error is VARCHAR(1024): a longer (or unstorable) text would be rejected in strict mode,
  // and a rejected statement would leave the row to its lease instead of recording the failure.
  const std::string error = storable_error(failure.error);
  return in_transaction<LeaseUpdateResult>("record failure", [&] {
    LeaseUpdateResult result;
    if (ids.empty()) return result;
    // Failures are the rare path: one more read names the rows another claim took over, so
    // they are neither counted nor logged as this claim's failures.
    result.no_longer_leased =
        missing_from(ids, select_ids(ids, lease_sql::SelectHeldBy{.owner = token.value()}));
    const auto count_changed = [&](sql::PreparedStatement& statement) {
      result.changed += static_cast<size_t>(statement.executeUpdate());
    };
    if (failure.permanent) {
      for_each_id_chunk(
          ids, lease_sql::RecordPermanentFailure{.last_error = error, .owner = token.value()},
          count_changed);
    } else {
      for_each_id_chunk(ids,
                        lease_sql::RecordRetriableFailure{
                            .max_attempts = policy_.max_attempts,
                            .backoff_initial = policy_.retry_backoff_initial,
                            .backoff_max = policy_.retry_backoff_max,
                            .last_error = error,
                            .owner = token.value(),
                        },
                        count_changed);
    }
    return result;
  });
}

}  // namespace outbox
