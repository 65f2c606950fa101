#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace outbox::harness {

// One record as kcat (an independent Kafka client) read it back.
struct KafkaRecord {
  std::string topic;
  int partition = -1;
  long long offset = -1;
  long long timestamp_ms = -1;  // the producer's CreateTime
  std::string key;
  std::map<std::string, std::string> headers;
  std::string value;
};

// Every record of `topic` from the beginning, read with kcat. Keys, headers and values are
// text without the bytes \x1e and \x1f; a header value holding a comma reads wrongly (kcat's
// %h is "name=value,name=value"): use read_topic_exact for those.
// `isolation` is kcat's isolation.level: read_committed (librdkafka's default) sees only
// committed transactions; read_uncommitted also the aborted ones (relay.ordering:
// transactional's aborted copies).
enum class Isolation { kReadCommitted, kReadUncommitted };
std::vector<KafkaRecord> read_topic(const std::string& bootstrap, const std::string& topic,
                                    Isolation isolation = Isolation::kReadCommitted);

// One record byte for byte as kcat read it: a null key or value (a tombstone) is nullopt,
// headers in message order with their exact values (a header without a value is nullopt).
struct ExactRecord {
  int partition = -1;
  long long offset = -1;
  std::optional<std::string> key;
  std::optional<std::string> value;
  std::vector<std::pair<std::string, std::optional<std::string>>> headers;

  // The value of the first header called `name`, or nullopt (absent, or without a value).
  std::optional<std::string> header(const std::string& name) const;
};

// Every record of `topic` from the beginning, exactly: keys and values framed by their lengths
// (kcat -f %K / %S), so any byte (NUL, invalid UTF-8, the separators) survives; headers from
// kcat's JSON output (-J), each name and value base64-encoded by jq. Sorted by (partition,
// offset).
std::vector<ExactRecord> read_topic_exact(const std::string& bootstrap, const std::string& topic);

// Whether the cluster has `topic` with at least one partition, asked with kcat -L (an
// independent client; a metadata request never creates a topic while auto-creation is off).
bool topic_exists(const std::string& bootstrap, const std::string& topic);

// Produces each of `payloads` as one message to `topic`/`partition` with kcat (an independent
// Kafka client), all with the same key and headers ("name=value"); waits for the broker's
// acknowledgements.
void produce_with_kcat(const std::string& bootstrap, const std::string& topic, int partition,
                       const std::string& key, const std::vector<std::string>& headers,
                       const std::vector<std::string>& payloads);

// The offsets `group` has committed for partitions 0..partitions-1 of `topic` (-1001 for
// none), asked of the group coordinator by a librdkafka client that does not join the group.
std::map<int, long long> committed_offsets(const std::string& bootstrap, const std::string& group,
                                           const std::string& topic, int partitions);

}  // namespace outbox::harness
