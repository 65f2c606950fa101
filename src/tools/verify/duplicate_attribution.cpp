#include "duplicate_attribution.hpp"

#include <algorithm>
#include <optional>
#include <set>

namespace outbox::verify {
namespace {

// A duplicate is attributed to a fault at most this long before it showed: the relay's lease
// (10 s in the soak) plus the time a restarted process needs to get going.
constexpr int64_t kHorizonUs = 30'000'000;

std::string position(int partition, long long offset) {
  return std::to_string(partition) + "@" + std::to_string(offset);
}

// "soak-r2-i3/w0/c17" -> "soak-r2-i3"
std::string instance_of(const std::string& claim) {
  return claim.substr(0, claim.find('/'));
}

// The latest applied fault of one of `kinds` (and passing `fits`) at or before `at_us`, within
// the horizon; 0 when there is none.
template <typename Fits>
int latest_fault(const std::vector<InjectedFault>& faults, std::initializer_list<FaultKind> kinds,
                 int64_t at_us, Fits fits) {
  int found = 0;
  int64_t found_at = -1;
  for (const InjectedFault& injected : faults) {
    if (!injected.applied || injected.at_us > at_us || injected.at_us < at_us - kHorizonUs)
      continue;
    if (std::find(kinds.begin(), kinds.end(), injected.fault.kind) == kinds.end()) continue;
    if (!fits(injected)) continue;
    if (injected.at_us >= found_at) {
      found = injected.fault.index;
      found_at = injected.at_us;
    }
  }
  return found;
}

int latest_fault(const std::vector<InjectedFault>& faults, std::initializer_list<FaultKind> kinds,
                 int64_t at_us) {
  return latest_fault(faults, kinds, at_us, [](const InjectedFault&) { return true; });
}

// The first applied fault of one of `kinds` in (from_us, to_us]: what struck between a
// consumer's apply and the redelivery that shows its offset commit never landed. Falls back to
// the latest one before to_us.
int first_fault_between(const std::vector<InjectedFault>& faults,
                        std::initializer_list<FaultKind> kinds, int64_t from_us, int64_t to_us) {
  int found = 0;
  int64_t found_at = to_us + 1;
  for (const InjectedFault& injected : faults) {
    if (!injected.applied || injected.at_us <= from_us || injected.at_us > to_us) continue;
    if (std::find(kinds.begin(), kinds.end(), injected.fault.kind) == kinds.end()) continue;
    if (injected.at_us < found_at) {
      found = injected.fault.index;
      found_at = injected.at_us;
    }
  }
  return found != 0 ? found : latest_fault(faults, kinds, to_us);
}

// What the relays logged about one event.
struct EventTrail {
  std::vector<const RelayEventLine*> claimed;
  std::map<std::string, const RelayEventLine*> delivered_at;  // position -> line
  std::set<std::string> lease_lost;                           // claims
  std::set<std::string> settled;                              // claims with any outcome line
  std::vector<const RelayEventLine*> not_delivered;           // every relay's, any order
};

// When the delivery of a copy produced at `produced_us` was reported failed: the first such
// report at or after it (the fault that made it fail struck before the report, but perhaps
// after the produce: a node killed while the produce was in flight); the produce time when
// there is none.
int64_t failure_reported_us(const EventTrail& trail, int64_t produced_us) {
  int64_t first = -1;
  for (const RelayEventLine* line : trail.not_delivered) {
    if (line->at_us >= produced_us && (first < 0 || line->at_us < first)) first = line->at_us;
  }
  return first < 0 ? produced_us : first;
}

}  // namespace

const char* copy_cause_name(CopyCause cause) {
  switch (cause) {
    case CopyCause::kPublisherKilled:
      return "publisher killed before its mark";
    case CopyCause::kLeaseLost:
      return "lease taken over, late mark refused";
    case CopyCause::kMarkAbandoned:
      return "mark not written before the lease ended";
    case CopyCause::kDeliveryFailedButStored:
      return "delivery reported failed, broker kept it";
    case CopyCause::kProducerRetry:
      return "one claim, two copies (a retry stored twice)";
  }
  return "?";
}

const char* redelivery_cause_name(RedeliveryCause cause) {
  switch (cause) {
    case RedeliveryCause::kConsumerKilled:
      return "consumer killed before its offset commit";
    case RedeliveryCause::kCommitUnknown:
      return "consumer COMMIT outcome unknown, retried";
    case RedeliveryCause::kOffsetNotCommitted:
      return "offset commit failed or overtaken by a rebalance";
  }
  return "?";
}

DuplicateAccount account_for_duplicates(const DuplicateEvidence& evidence) {
  DuplicateAccount account;
  std::map<std::string, EventTrail> trails;
  for (const RelayEventLine& line : evidence.relay.events) {
    EventTrail& trail = trails[line.event_id];
    switch (line.step) {
      case RelayEventStep::kClaimed:
        trail.claimed.push_back(&line);
        break;
      case RelayEventStep::kDelivered:
        trail.delivered_at[position(line.partition, line.offset)] = &line;
        trail.settled.insert(line.claim);
        break;
      case RelayEventStep::kLeaseLost:
        trail.lease_lost.insert(line.claim);
        trail.settled.insert(line.claim);
        break;
      case RelayEventStep::kNotDelivered:
        trail.not_delivered.push_back(&line);
        break;
    }
  }
  std::map<std::string, const AbandonedMark*> abandoned;
  for (const AbandonedMark& mark : evidence.relay.abandoned)
    abandoned[mark.claim] = &mark;

  // Copies per event, in topic order.
  std::map<std::string, std::vector<const harness::KafkaRecord*>> copies;
  for (const harness::KafkaRecord& record : evidence.topic) {
    if (const auto id = record.headers.find("event_id"); id != record.headers.end())
      copies[id->second].push_back(&record);
  }
  for (const auto& [event_id, records] : copies) {
    if (records.size() < 2) continue;
    const EventTrail& trail = trails[event_id];
    const auto final_claim = evidence.published_by.find(event_id);
    // The copy the marking claim produced is the original; every other one is a duplicate.
    const harness::KafkaRecord* original = records.back();
    for (const harness::KafkaRecord* record : records) {
      const auto line = trail.delivered_at.find(position(record->partition, record->offset));
      if (line != trail.delivered_at.end() && final_claim != evidence.published_by.end() &&
          line->second->claim == final_claim->second) {
        original = record;
        break;
      }
    }
    // Claims that produced a copy nobody logged: neither the final claim nor one that logged
    // a delivery. Each unlogged copy takes one of them, killed ones first.
    std::vector<const RelayEventLine*> silent;
    for (const RelayEventLine* claim : trail.claimed) {
      if (final_claim != evidence.published_by.end() && claim->claim == final_claim->second)
        continue;
      if (trail.settled.count(claim->claim) == 0) silent.push_back(claim);
    }
    for (const harness::KafkaRecord* record : records) {
      if (record == original) continue;
      DuplicateCopy duplicate{event_id, position(record->partition, record->offset),
                              CopyCause::kProducerRetry, 0};
      const int64_t produced_us = record->timestamp_ms * 1000;
      const auto line = trail.delivered_at.find(duplicate.copy);
      if (line != trail.delivered_at.end()) {
        const std::string& claim = line->second->claim;
        if (trail.lease_lost.count(claim) != 0) {
          duplicate.cause = CopyCause::kLeaseLost;
          duplicate.fault =
              latest_fault(evidence.faults, {FaultKind::kLeaseShortened}, line->second->at_us);
        } else if (const auto mark = abandoned.find(claim); mark != abandoned.end()) {
          duplicate.cause = CopyCause::kMarkAbandoned;
          const auto slot = evidence.relay_slot_of_instance.find(instance_of(claim));
          duplicate.fault = latest_fault(
              evidence.faults, {FaultKind::kRelayConnectionKill, FaultKind::kMariadbRestart},
              mark->second->at_us, [&](const InjectedFault& fault) {
                return fault.fault.kind == FaultKind::kMariadbRestart ||
                       (slot != evidence.relay_slot_of_instance.end() &&
                        fault.fault.target == slot->second);
              });
        } else {
          duplicate.cause = CopyCause::kProducerRetry;
          duplicate.fault = latest_fault(
              evidence.faults,
              {FaultKind::kBrokerRequestErrors, FaultKind::kBrokerDown, FaultKind::kBrokerKill},
              produced_us);
        }
        account.copies.push_back(duplicate);
        continue;
      }
      const auto killed = std::find_if(silent.begin(), silent.end(), [&](const auto* claim) {
        return evidence.killed_relay_instances.count(instance_of(claim->claim)) != 0;
      });
      if (killed != silent.end()) {
        duplicate.cause = CopyCause::kPublisherKilled;
        duplicate.fault = evidence.killed_relay_instances.at(instance_of((*killed)->claim));
        silent.erase(killed);
      } else {
        duplicate.cause = !trail.not_delivered.empty() ? CopyCause::kDeliveryFailedButStored
                                                       : CopyCause::kProducerRetry;
        duplicate.fault = latest_fault(evidence.faults,
                                       {FaultKind::kBrokerRequestErrors, FaultKind::kBrokerDown,
                                        FaultKind::kBrokerKill, FaultKind::kLeaseShortened},
                                       failure_reported_us(trail, produced_us));
        if (!silent.empty()) silent.erase(silent.begin());
      }
      account.copies.push_back(duplicate);
    }
  }

  // The consumers: a copy handled again after it was settled (applied or already consumed),
  // or after a COMMIT whose outcome was unknown.
  std::vector<const HandleAttempt*> attempts;
  for (const HandleAttempt& attempt : evidence.attempts)
    attempts.push_back(&attempt);
  std::stable_sort(attempts.begin(), attempts.end(),
                   [](const auto* a, const auto* b) { return a->at_us < b->at_us; });
  std::map<std::string, const HandleAttempt*> settled_at;  // event@position -> last settlement
  std::map<std::string, const HandleAttempt*> unknown_at;  // event@position -> commit unknown
  for (const HandleAttempt* attempt : attempts) {
    const std::string copy = position(attempt->partition, attempt->offset);
    const std::string key = attempt->event_id + "@" + copy;
    if (attempt->outcome == HandleOutcome::kFailed) {
      if (attempt->commit_unknown) unknown_at[key] = attempt;
      continue;
    }
    if (attempt->outcome == HandleOutcome::kAlreadyConsumed) {
      ++account.already_consumed;
      Redelivery redelivery{attempt->event_id, copy, RedeliveryCause::kOffsetNotCommitted, 0};
      if (const auto before = settled_at.find(key); before != settled_at.end()) {
        const auto killed = evidence.killed_consumers.find(before->second->process);
        if (killed != evidence.killed_consumers.end()) {
          redelivery.cause = RedeliveryCause::kConsumerKilled;
          redelivery.fault = killed->second;
        } else {
          redelivery.fault =
              first_fault_between(evidence.faults,
                                  {FaultKind::kConsumerKill, FaultKind::kConsumerConnectionKill,
                                   FaultKind::kBrokerRequestErrors, FaultKind::kBrokerDown,
                                   FaultKind::kBrokerKill, FaultKind::kMariadbRestart},
                                  before->second->at_us, attempt->at_us);
        }
        account.redeliveries.push_back(redelivery);
      } else if (const auto unknown = unknown_at.find(key); unknown != unknown_at.end()) {
        redelivery.cause = RedeliveryCause::kCommitUnknown;
        const auto slot = evidence.consumer_slot_of_process.find(unknown->second->process);
        redelivery.fault = latest_fault(
            evidence.faults, {FaultKind::kConsumerConnectionKill, FaultKind::kMariadbRestart},
            unknown->second->at_us, [&](const InjectedFault& fault) {
              return fault.fault.kind == FaultKind::kMariadbRestart ||
                     (slot != evidence.consumer_slot_of_process.end() &&
                      fault.fault.target == slot->second);
            });
        account.redeliveries.push_back(redelivery);
      }
      // Otherwise: the first handling of a duplicate copy (counted with the copies).
    }
    settled_at[key] = attempt;
  }
  return account;
}

long long explained_verdicts(const DuplicateAccount& account, long long duplicate_copies,
                             long long consumed_rows, long long applied_lines) {
  const auto landed_unknown_commits = static_cast<long long>(std::count_if(
      account.redeliveries.begin(), account.redeliveries.end(),
      [](const Redelivery& r) { return r.cause == RedeliveryCause::kCommitUnknown; }));
  const long long unlogged_effects =
      std::max(0LL, consumed_rows - applied_lines - landed_unknown_commits);
  return duplicate_copies + static_cast<long long>(account.redeliveries.size()) + unlogged_effects;
}

std::vector<DuplicatesRow> duplicates_by_fault_kind(const DuplicateEvidence& evidence,
                                                    const DuplicateAccount& account,
                                                    const std::vector<FaultKind>& kinds) {
  std::vector<DuplicatesRow> rows;
  std::map<FaultKind, size_t> row_of_kind;
  for (const FaultKind kind : kinds) {
    row_of_kind[kind] = rows.size();
    rows.push_back(DuplicatesRow{fault_kind_name(kind), 0, 0, 0, 0, {}});
  }
  // A fault of a kind not listed still gets its row, before "unattributed".
  for (const InjectedFault& injected : evidence.faults) {
    if (row_of_kind.emplace(injected.fault.kind, rows.size()).second)
      rows.push_back(DuplicatesRow{fault_kind_name(injected.fault.kind), 0, 0, 0, 0, {}});
  }
  rows.push_back(DuplicatesRow{"unattributed", 0, 0, 0, 0, {}});
  std::map<int, FaultKind> kind_of;
  for (const InjectedFault& injected : evidence.faults) {
    kind_of[injected.fault.index] = injected.fault.kind;
    DuplicatesRow& row = rows[row_of_kind.at(injected.fault.kind)];
    ++row.injected;
    if (!injected.applied) ++row.skipped;
  }
  const auto row_of = [&](int fault) -> DuplicatesRow& {
    const auto kind = kind_of.find(fault);
    return kind == kind_of.end() ? rows.back() : rows[row_of_kind.at(kind->second)];
  };
  for (const DuplicateCopy& copy : account.copies) {
    DuplicatesRow& row = row_of(copy.fault);
    ++row.broker_duplicates;
    ++row.mechanisms[copy_cause_name(copy.cause)];
  }
  for (const Redelivery& redelivery : account.redeliveries) {
    DuplicatesRow& row = row_of(redelivery.fault);
    ++row.consumer_redeliveries;
    ++row.mechanisms[redelivery_cause_name(redelivery.cause)];
  }
  return rows;
}

}  // namespace outbox::verify
