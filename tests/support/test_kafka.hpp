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

}  // namespace outbox::test
