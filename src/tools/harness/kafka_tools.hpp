#pragma once

#include <map>
#include <string>
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

// Every record of `topic` from the beginning, read with kcat.
std::vector<KafkaRecord> read_topic(const std::string& bootstrap, const std::string& topic);

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
