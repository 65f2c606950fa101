#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "daemon_logs.hpp"
#include "fault_schedule.hpp"
#include "harness/kafka_tools.hpp"

namespace outbox::verify {

// A fault as the soak injected it.
struct InjectedFault {
  Fault fault;
  int64_t at_us = -1;    // when it was injected (UTC microseconds, the logs' clock)
  bool applied = false;  // false: skipped (its target was not there), with `outcome` saying why
  std::string outcome;
};

// Why a message is on the topic more than once.
enum class CopyCause {
  kPublisherKilled,          // its claim's relay was killed before it marked the row
  kLeaseLost,                // its claim's lease was taken over; the mark changed no row
  kMarkAbandoned,            // the mark could not be written before the lease ended
  kDeliveryFailedButStored,  // the delivery report said failed/timed out, the broker kept it
  kProducerRetry,            // one claim, two copies (or a copy no claim's log explains):
                             // librdkafka retried a produce the broker had stored (the mock
                             // does not deduplicate without transactional.id; a real broker
                             // should; seen twice under broker_kill on Kafka 4.4, unexplained)
};
// Why the consumer group handled the same copy again.
enum class RedeliveryCause {
  kConsumerKilled,  // the consumer that applied it died before its offset commit landed
  kCommitUnknown,   // the consumer's COMMIT threw (connection killed); the retry found it applied
  kOffsetNotCommitted,  // applied by a live consumer whose offset commit failed or came after
                        // a rebalance
};
const char* copy_cause_name(CopyCause cause);
const char* redelivery_cause_name(RedeliveryCause cause);

struct DuplicateCopy {
  std::string event_id;
  std::string copy;  // "partition@offset"
  CopyCause cause = CopyCause::kProducerRetry;
  int fault = 0;  // index of the fault it is attributed to; 0: none within the horizon
};
struct Redelivery {
  std::string event_id;
  std::string copy;
  RedeliveryCause cause = RedeliveryCause::kOffsetNotCommitted;
  int fault = 0;
};

// The evidence, read after the soak: the topic (kcat), each row's final claim, the relays'
// and consumers' log lines, and which process incarnations a fault killed.
struct DuplicateEvidence {
  std::vector<InjectedFault> faults;
  std::vector<harness::KafkaRecord> topic;
  std::map<std::string, std::string> published_by;      // event id -> the claim that marked it
  RelayLog relay;                                       // every relay incarnation's lines
  std::map<std::string, int> relay_slot_of_instance;    // lease-token prefix -> relay index
  std::map<std::string, int> killed_relay_instances;    // lease-token prefix -> fault index
  std::vector<HandleAttempt> attempts;                  // every consumer incarnation's lines
  std::map<std::string, int> consumer_slot_of_process;  // process name -> consumer index
  std::map<std::string, int> killed_consumers;          // process name -> fault index
};

struct DuplicateAccount {
  std::vector<DuplicateCopy> copies;
  std::vector<Redelivery> redeliveries;
  long long already_consumed = 0;  // "already consumed" verdicts: the dedupe branch ran
};

// Explains every extra copy on the topic and every repeated handling by the consumers, and
// attributes each to the fault that caused it: by mechanism first (which claim produced the
// copy and how it ended, which consumer applied it and how that one ended), then to a fault of
// the kinds that produce that mechanism: the one that killed the process, else the latest one
// before the evidence (30 s horizon), for an offset that was never committed the first one
// between the apply and the redelivery; 0 when none fits.
DuplicateAccount account_for_duplicates(const DuplicateEvidence& evidence);

// How many "already consumed" verdicts the evidence explains: one per duplicate copy on the
// topic, one per redelivery, and one per effect a consumer committed but never logged as
// applied (`consumed_rows` beyond `applied_lines`: killed -9 between its database commit and
// its log line, so the copy delivered again is the first its logs show). A COMMIT whose outcome
// was unknown and that did land is such an effect too, but its retry's verdict is already a
// redelivery (kCommitUnknown): it is not counted twice.
long long explained_verdicts(const DuplicateAccount& account, long long duplicate_copies,
                             long long consumed_rows, long long applied_lines);

// One row per fault kind of `kinds`, in that order (the kinds the soak's broker takes, see
// fault_kinds), and "unattributed" last: faults injected, duplicate copies on the broker,
// repeated handlings by the consumers, with their mechanisms.
struct DuplicatesRow {
  std::string fault_kind;
  int injected = 0;
  int skipped = 0;
  long long broker_duplicates = 0;
  long long consumer_redeliveries = 0;
  std::map<std::string, long long> mechanisms;
};
std::vector<DuplicatesRow> duplicates_by_fault_kind(const DuplicateEvidence& evidence,
                                                    const DuplicateAccount& account,
                                                    const std::vector<FaultKind>& kinds);

}  // namespace outbox::verify
