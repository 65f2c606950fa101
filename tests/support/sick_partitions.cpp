#include "sick_partitions.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <sstream>

#include "delivery_audit.hpp"
#include "harness/sequence_rows.hpp"
#include "http_scrape.hpp"
#include "poll.hpp"
#include "test_kafka.hpp"
#include "topic_checks.hpp"

namespace outbox::test {

std::string created_base(const TestDatabase& db) {
  return db.scalar("SELECT CURRENT_TIMESTAMP(6) - INTERVAL 1 HOUR");
}

void insert_typed_events(const TestDatabase& db, const TypedEvents& events,
                         const std::string& base) {
  const size_t width = 36 - events.prefix.size() - 1;
  std::ostringstream sql;
  // One statement whatever the count (harness::sequence_rows), as insert_versioned_events.
  sql << "INSERT INTO outbox_event (event_id, aggregate_type, aggregate_id, event_type, "
         "event_version, payload, status, created_at) "
      << "SELECT CONCAT('" << events.prefix << "-', LPAD(seq, " << width << ", '0')), '"
      << events.aggregate_type << "', CONCAT('agg-', (seq - 1) % " << events.aggregates << "), '"
      << events.aggregate_type << "_CHANGED', (seq - 1) DIV " << events.aggregates
      << " + 1, JSON_OBJECT('seq', seq), 'PENDING', TIMESTAMP '" << base << "' + INTERVAL (seq * "
      << events.stride << " + " << events.offset << ") MICROSECOND FROM "
      << harness::sequence_rows(
             static_cast<long long>(events.first_version - 1) * events.aggregates + 1,
             static_cast<long long>(events.versions) * events.aggregates);
  db.exec(sql.str());
}

int murmur2_partition(const std::string& key, int partitions) {
  // Kafka's Utils.murmur2 (librdkafka's rd_murmur2): seed 0x9747b28c, 4-byte little-endian
  // blocks, then the positive part modulo the partition count.
  constexpr uint32_t kSeed = 0x9747b28c;
  constexpr uint32_t kM = 0x5bd1e995;
  constexpr int kR = 24;
  const auto length = static_cast<uint32_t>(key.size());
  uint32_t h = kSeed ^ length;
  const auto byte = [&](size_t i) { return static_cast<uint32_t>(static_cast<uint8_t>(key[i])); };
  const size_t blocks = key.size() / 4;
  for (size_t i = 0; i < blocks; ++i) {
    uint32_t k =
        byte(4 * i) | (byte(4 * i + 1) << 8) | (byte(4 * i + 2) << 16) | (byte(4 * i + 3) << 24);
    k *= kM;
    k ^= k >> kR;
    k *= kM;
    h *= kM;
    h ^= k;
  }
  const size_t tail = 4 * blocks;
  switch (key.size() % 4) {
    case 3:
      h ^= byte(tail + 2) << 16;
      [[fallthrough]];
    case 2:
      h ^= byte(tail + 1) << 8;
      [[fallthrough]];
    case 1:
      h ^= byte(tail);
      h *= kM;
      break;
    default:
      break;
  }
  h ^= h >> 13;
  h *= kM;
  h ^= h >> 15;
  return static_cast<int>((h & 0x7fffffffU) % static_cast<uint32_t>(partitions));
}

std::vector<std::string> aggregates_on_partition(int aggregates, int partition, int partitions) {
  std::vector<std::string> ids;
  for (int a = 0; a < aggregates; ++a) {
    const std::string id = "agg-" + std::to_string(a);
    if (murmur2_partition(id, partitions) == partition) ids.push_back(id);
  }
  return ids;
}

std::string aggregate_in_sql(const std::vector<std::string>& aggregate_ids) {
  if (aggregate_ids.empty()) return "FALSE";
  std::string sql = "aggregate_id IN (";
  for (size_t i = 0; i < aggregate_ids.size(); ++i)
    sql += (i > 0 ? ", '" : "'") + aggregate_ids[i] + "'";
  return sql + ")";
}

void check_partitions_of_keys(const std::vector<harness::KafkaRecord>& records, int partitions) {
  std::vector<std::string> elsewhere;
  for (const auto& record : records) {
    if (murmur2_partition(record.key, partitions) != record.partition) {
      elsewhere.push_back(record.key + " on " + std::to_string(record.partition));
    }
  }
  // Otherwise the test's idea of which rows the sick partition holds was wrong.
  INFO("keys not where murmur2 puts them: " << first_few(elsewhere));
  CHECK(elsewhere.empty());
}

void await_or_explain(const TestDatabase& db, const RelayProcess& relay, const std::string& what,
                      const std::function<bool()>& done, std::chrono::milliseconds limit) {
  if (eventually(done, limit, std::chrono::milliseconds(200))) return;
  FAIL("waited for " << what << "; " << describe_unpublished(db, {&relay}));
}

void await_drain_or_explain(const TestDatabase& db, const RelayProcess& relay,
                            const std::string& what, const std::function<bool()>& done) {
  const auto published = [&] { return db.count("status = 'PUBLISHED'"); };
  if (eventually_while_progressing(done, published)) return;
  FAIL("waited for " << what << "; " << describe_unpublished(db, {&relay}));
}

double paused_partitions(const RelayProcess& relay, const std::string& topic) {
  return metric_sample(http_get(relay.metrics_port(), "/metrics").body,
                       "outbox_relay_paused_partitions{topic=\"" + topic + "\"}");
}

double partition_pauses(const RelayProcess& relay) {
  return metric_sample(http_get(relay.metrics_port(), "/metrics").body,
                       "outbox_relay_partition_pauses_total");
}

std::string paused_line(const std::string& topic, int partition) {
  return "partition " + topic + "[" + std::to_string(partition) + "] paused: ";
}

std::string resumed_line(const std::string& topic, int partition) {
  return "partition " + topic + "[" + std::to_string(partition) + "] resumed after ";
}

std::string held_error_like(const std::string& topic) {
  // '[' is no LIKE wildcard; '_' is, and any character matching it is harmless here.
  return "partition paused: " + topic + "[%";
}

long long check_held_not_failed(const TestDatabase& db, const std::string& where_sql,
                                const std::string& topic) {
  const std::string rows = "(" + where_sql + ")";
  const long long all = db.count(rows);
  // The condition may list hundreds of aggregate ids: its start says enough.
  INFO("sick rows (" << where_sql.substr(0, 100) << (where_sql.size() > 100 ? "...)" : ")") << ": "
                     << all << "; by status: "
                     << db.scalar("SELECT GROUP_CONCAT(CONCAT(status, ' ', n)) FROM (SELECT "
                                  "status, COUNT(*) AS n FROM outbox_event WHERE " +
                                  rows + " GROUP BY status) AS s"));
  CHECK(all > 0);
  CHECK(db.count(rows + " AND status = 'PUBLISHED'") == 0);
  CHECK(db.count(rows + " AND status = 'FAILED'") == 0);
  CHECK(db.count(rows + " AND attempts > 0") == 0);
  CHECK(db.count(rows + " AND status NOT IN ('RETRY', 'PENDING', 'PUBLISHING', 'BLOCKED')") == 0);
  // The sick rows keep moving (a probe wakes and claims some, its failure holds them again):
  // each check is one statement, and "some are held" is waited for, not caught at an instant.
  const std::string held_rows =
      rows + " AND status = 'RETRY' AND last_error LIKE '" + held_error_like(topic) + "'";
  CHECK(eventually([&] { return db.count(held_rows) > 0; }));
  // No RETRY row waits for anything else (the first one that does, in the expansion itself).
  CHECK(db.scalar("SELECT COALESCE(MIN(CONCAT(event_id, ' attempts ', attempts, ' next ', "
                  "COALESCE(next_attempt_at, 'NULL'), ': ', COALESCE(last_error, 'NULL'))), "
                  "'none') FROM outbox_event WHERE " +
                  rows + " AND status = 'RETRY' AND NOT (last_error LIKE '" +
                  held_error_like(topic) + "')") == "none");
  return db.count(held_rows);
}

std::vector<harness::KafkaRecord> check_topic_complete_in_order(const TestDatabase& db,
                                                                const std::string& bootstrap,
                                                                const TypedEvents& events) {
  INFO("topic " << events.topic());
  const auto records = read_topic(bootstrap, events.topic());
  const DeliveryAudit audit =
      audit_delivery(db, records, "aggregate_type = '" + events.aggregate_type + "'");
  check_all_published_and_on_topic(audit);
  CHECK(audit.rows == static_cast<long long>(events.aggregates) * events.versions);
  const VersionOrder order = version_order(records, events.versions);
  INFO("out of order: " << first_few(order.reordered) << "; split: " << first_few(order.split)
                        << "; incomplete: " << first_few(order.incomplete));
  CHECK(order.aggregates == static_cast<size_t>(events.aggregates));
  CHECK(order.split.empty());
  CHECK(order.incomplete.empty());
  CHECK(order.inversions == 0);
  return records;
}

}  // namespace outbox::test
