#pragma once

#include <map>
#include <string>
#include <vector>

#include "harness/kafka_tools.hpp"
#include "test_database.hpp"
#include "topic_checks.hpp"

namespace outbox::test {

class RelayProcess;

// The outbox table and a topic side by side, each read by an independent client (the mariadb
// CLI, kcat), after a run: what was lost, what was marked without being there, what is extra.
struct DeliveryAudit {
  long long rows = 0;
  long long published = 0;  // rows PUBLISHED
  // PUBLISHED, but not on the topic: marked without the cluster's acknowledgement (or the
  // cluster lost an acknowledged record). Never allowed.
  std::vector<std::string> marked_not_on_topic;
  // Rows of any status whose event is not on the topic (lost, once everything should be out).
  std::vector<std::string> rows_not_on_topic;
  // Records whose event_id no row has.
  std::vector<std::string> records_without_row;
  TopicTally topic;
};

// `rows_where`: which rows of outbox_event the topic is held to (SQL, the test's own text).
DeliveryAudit audit_delivery(const TestDatabase& db,
                             const std::vector<harness::KafkaRecord>& records,
                             const std::string& rows_where = "TRUE");

// What a drain that never finished left behind, for the failure message of a wait for every
// row to be PUBLISHED: the rows per status, the oldest `limit` unpublished rows (status,
// attempts, lease owner and its end on the database clock, next attempt, last error), and
// the last lines of each relay's log. Without it a CI run says only "false".
std::string describe_unpublished(const TestDatabase& db,
                                 const std::vector<const RelayProcess*>& relays, int limit = 10);

// CHECKs that nothing is lost (every row PUBLISHED, every event on the topic), nothing marked
// that the topic does not hold, and nothing on it that the table does not know.
void check_all_published_and_on_topic(const DeliveryAudit& audit);

// Every extra copy of an event on the topic, with the mechanism that made it, read from the
// relays' own debug lines by outbox-verify's attribution (src/tools/verify): "delivery
// reported failed, broker kept it" (a maybe-delivered report whose message the broker had
// stored, published again), a lease taken over, a mark not written in time, a killed
// publisher. With the idempotent producer a real broker stores one copy per claim, so a copy
// none of these explains is unexplained, and so are more copies than claims unless a delivery
// timed out: the epoch bump that follows can store a second copy of a message in flight on
// another partition (librdkafka #4953), counted apart.
struct DuplicateCauses {
  long long copies = 0;
  std::map<std::string, long long> by_cause;  // mechanism (and the failure's error name) -> n
  long long beyond_claims_after_timeout = 0;  // copies past one per claim, a delivery timed out
  std::vector<std::string> unexplained;       // "event_id partition@offset"
  // "0", or "3 (lease taken over, late mark refused: 1, ...)".
  std::string summary() const;
};

// `killed`: those of `relays` the test killed -9 (a claim of theirs that left a copy but
// logged nothing of it is a killed publisher's, "publisher killed before its mark").
DuplicateCauses explain_duplicates(const TestDatabase& db,
                                   const std::vector<harness::KafkaRecord>& records,
                                   const std::vector<const RelayProcess*>& relays,
                                   const std::vector<const RelayProcess*>& killed = {});

}  // namespace outbox::test
