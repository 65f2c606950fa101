#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "harness/kafka_tools.hpp"
#include "relay_process.hpp"
#include "test_database.hpp"

namespace outbox::test {

// Helpers of the sick-partition tests (issue 29: a partition the cluster cannot write to is
// paused on its own, the other topics and partitions flow), on the mock cluster and on the
// real one.

// The events of one aggregate type: versions first_version..versions of `aggregates`
// aggregates "agg-0".., version-major (as writers committing versions one after another store
// them), PENDING, event type "<aggregate_type>_CHANGED", ids event_id(prefix, s) for
// s = (first_version - 1) * aggregates + 1 .. versions * aggregates (so a later insert of
// later versions continues the same ids). Created at `base` (a timestamp literal from
// created_base()) + s * stride + offset microseconds: two types inserted with stride 2 and
// offsets 0 and 1 come interleaved in claim order, a type inserted with a larger offset comes
// after the other.
struct TypedEvents {
  std::string prefix;
  std::string aggregate_type;  // the topic is outbox.<aggregate_type> (the default template)
  int aggregates = 100;
  int versions = 10;  // the last version
  int stride = 1;
  long long offset = 0;
  int first_version = 1;
  int count() const { return aggregates * (versions - first_version + 1); }
  std::string topic() const { return "outbox." + aggregate_type; }
};
// An hour ago on the database clock, as a literal for TypedEvents (one base for every
// insert_typed_events of a test, so that stride and offset order them).
std::string created_base(const TestDatabase& db);
void insert_typed_events(const TestDatabase& db, const TypedEvents& events,
                         const std::string& base);

// The partition Kafka's murmur2 partitioner (the relay's default, the Java client's) gives a
// key on a topic of `partitions` partitions: computed here on its own, not by the relay's
// code, and checked against where the records really landed (check_partitions_of_keys).
int murmur2_partition(const std::string& key, int partitions);
// The aggregate ids "agg-0".."agg-<aggregates - 1>" that land on `partition`.
std::vector<std::string> aggregates_on_partition(int aggregates, int partition, int partitions);
// "aggregate_id IN ('agg-3', ...)" ("FALSE" for none), for counts of a partition's rows.
std::string aggregate_in_sql(const std::vector<std::string>& aggregate_ids);

// CHECKs that every record sits on the partition murmur2_partition gives its key.
void check_partitions_of_keys(const std::vector<harness::KafkaRecord>& records, int partitions);

// Waits until `done` holds (eventually, `limit` a hang guard), or FAILs naming `what` with
// the rows left unpublished and the relay's last log lines (describe_unpublished).
void await_or_explain(const TestDatabase& db, const RelayProcess& relay, const std::string& what,
                      const std::function<bool()>& done,
                      std::chrono::milliseconds limit = std::chrono::seconds(120));
// The same for a drain: waits for as long as rows keep being published.
void await_drain_or_explain(const TestDatabase& db, const RelayProcess& relay,
                            const std::string& what, const std::function<bool()>& done);

// The relay's outbox_relay_paused_partitions{topic="<topic>"} (-1: no such series).
double paused_partitions(const RelayProcess& relay, const std::string& topic);
// outbox_relay_partition_pauses_total (-1: no such series).
double partition_pauses(const RelayProcess& relay);

// The log line of a pause and of a resume of topic[partition].
std::string paused_line(const std::string& topic, int partition);
std::string resumed_line(const std::string& topic, int partition);

// The last_error prefix of a row a paused partition holds: "partition paused: <topic>[".
std::string held_error_like(const std::string& topic);

// CHECKs, for the rows `where_sql` selects (rows of sick partitions while they are sick):
// nothing published, nothing parked FAILED, no attempt counted, each row waiting (RETRY,
// PENDING, PUBLISHING for a probe in flight, BLOCKED behind its aggregate's held head), and
// every RETRY row held with the partition's last_error (some of them at least, waited for).
// Returns the rows so held at the end.
long long check_held_not_failed(const TestDatabase& db, const std::string& where_sql,
                                const std::string& topic);

// CHECKs the topic against the rows of `events` once everything is out: every row PUBLISHED
// and on the topic (distinct event ids = rows), nothing unknown on it, each aggregate's
// versions 1..events.versions in order on one partition. Returns the topic's records.
std::vector<harness::KafkaRecord> check_topic_complete_in_order(const TestDatabase& db,
                                                                const std::string& bootstrap,
                                                                const TypedEvents& events);

}  // namespace outbox::test
