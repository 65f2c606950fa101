#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "child_process.hpp"
#include "test_env.hpp"

namespace outbox::test {

// A private outbox-test-broker process (librdkafka's mock cluster over TCP) for one test,
// so broker faults injected by one test never touch another.
class TestBroker {
 public:
  explicit TestBroker(int brokers = 3, int partitions = 8,
                      const std::vector<std::string>& topics = {});
  const std::string& bootstrap() const { return bootstrap_; }
  // Sends a control command (see mock_commands.hpp); throws unless the reply is "ok".
  void command(const std::string& line) const;

 private:
  TempDir dir_;
  std::string control_;
  std::unique_ptr<ChildProcess> process_;
  std::string bootstrap_;
};

// One record as kcat (an independent Kafka client) read it back.
struct KafkaRecord {
  std::string topic;
  int partition = -1;
  long long offset = -1;
  std::string key;
  std::map<std::string, std::string> headers;
  std::string value;
};

// Every record of `topic` from the beginning, read with kcat.
std::vector<KafkaRecord> read_topic(const std::string& bootstrap, const std::string& topic);

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

}  // namespace outbox::test
