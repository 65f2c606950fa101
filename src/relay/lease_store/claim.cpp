#include "lease_store/mysql_lease_store.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <unordered_map>

#include "lease_store/mysql_statements.hpp"
#include "lease_store/table_columns.hpp"

namespace outbox {
namespace {

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

}  // namespace

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

}  // namespace outbox
