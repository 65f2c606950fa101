#include "test_kafka.hpp"

#include <array>
#include <chrono>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "kafka/rdkafka_handles.hpp"

namespace outbox::test {
namespace {

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, separator))
    parts.push_back(part);
  if (!text.empty() && text.back() == separator) parts.emplace_back();
  return parts;
}

}  // namespace

TestBroker::TestBroker(int brokers, int partitions, const std::vector<std::string>& topics)
    : control_(dir_.file("control.sock")) {
  std::vector<std::string> argv{test_broker_binary(),
                                "--brokers",
                                std::to_string(brokers),
                                "--partitions",
                                std::to_string(partitions),
                                "--control",
                                control_};
  for (const std::string& topic : topics) {
    argv.push_back("--topic");
    argv.push_back(topic);
  }
  process_ = std::make_unique<ChildProcess>(argv, dir_.file("broker.log"));
  for (int i = 0; i < 500 && bootstrap_.empty(); ++i) {
    const std::string output = process_->output();
    const size_t at = output.find("bootstrap=");
    if (at != std::string::npos && output.find('\n', at) != std::string::npos) {
      bootstrap_ = output.substr(at + 10, output.find('\n', at) - at - 10);
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  if (bootstrap_.empty())
    throw std::runtime_error("test broker did not start: " + process_->output());
}

void TestBroker::command(const std::string& line) const {
  // Through the broker binary's own client mode, the way scripts inject faults.
  std::vector<std::string> argv{test_broker_binary(), "ctl", control_};
  std::istringstream words(line);
  for (std::string word; words >> word;)
    argv.push_back(word);
  const CommandResult result = run_command(argv);
  if (result.status != 0) {
    throw std::runtime_error("broker command '" + line + "': " + result.out + result.err);
  }
}

std::vector<KafkaRecord> read_topic(const std::string& bootstrap, const std::string& topic) {
  // \x1f separates fields and \x1e records: neither occurs in keys, headers or JSON payloads.
  const CommandResult result =
      run_command({"kcat", "-b", bootstrap, "-C", "-t", topic, "-o", "beginning", "-e", "-q", "-f",
                   "%t\\x1f%p\\x1f%o\\x1f%k\\x1f%h\\x1f%s\\x1e"});
  if (result.status != 0) throw std::runtime_error("kcat failed: " + result.err);
  std::vector<KafkaRecord> records;
  for (const std::string& line : split(result.out, '\x1e')) {
    if (line.empty()) continue;
    const std::vector<std::string> fields = split(line, '\x1f');
    if (fields.size() != 6) throw std::runtime_error("unexpected kcat record: " + line);
    KafkaRecord record;
    record.topic = fields[0];
    record.partition = std::stoi(fields[1]);
    record.offset = std::stoll(fields[2]);
    record.key = fields[3];
    for (const std::string& header : split(fields[4], ',')) {
      const size_t eq = header.find('=');
      if (eq != std::string::npos) record.headers[header.substr(0, eq)] = header.substr(eq + 1);
    }
    record.value = fields[5];
    records.push_back(std::move(record));
  }
  return records;
}

void produce_with_kcat(const std::string& bootstrap, const std::string& topic, int partition,
                       const std::string& key, const std::vector<std::string>& headers,
                       const std::vector<std::string>& payloads) {
  std::vector<std::string> argv{
      "kcat", "-P", "-b", bootstrap, "-t", topic, "-p", std::to_string(partition), "-k", key};
  for (const std::string& header : headers) {
    argv.push_back("-H");
    argv.push_back(header);
  }
  std::string input;
  for (const std::string& payload : payloads)
    input += payload + "\n";
  const CommandResult result = run_command(argv, input);
  if (result.status != 0) throw std::runtime_error("kcat -P failed: " + result.err);
}

std::map<int, long long> committed_offsets(const std::string& bootstrap, const std::string& group,
                                           const std::string& topic, int partitions) {
  RdKafkaConf conf(rd_kafka_conf_new());
  std::array<char, 512> error{};
  for (const auto& [name, value] : std::vector<std::pair<std::string, std::string>>{
           {"bootstrap.servers", bootstrap}, {"group.id", group}, {"log_level", "3"}}) {
    if (rd_kafka_conf_set(conf.get(), name.c_str(), value.c_str(), error.data(), error.size()) !=
        RD_KAFKA_CONF_OK) {
      throw std::runtime_error(std::string("committed_offsets: ") + error.data());
    }
  }
  RdKafkaHandle consumer(rd_kafka_new(RD_KAFKA_CONSUMER, conf.get(), error.data(), error.size()));
  if (!consumer) throw std::runtime_error(std::string("committed_offsets: ") + error.data());
  (void)conf.release();  // owned by the handle now
  RdKafkaPartitionList list(rd_kafka_topic_partition_list_new(partitions));
  for (int partition = 0; partition < partitions; ++partition)
    rd_kafka_topic_partition_list_add(list.get(), topic.c_str(), partition);
  const rd_kafka_resp_err_t result = rd_kafka_committed(consumer.get(), list.get(), 10000);
  if (result != RD_KAFKA_RESP_ERR_NO_ERROR) {
    throw std::runtime_error(std::string("committed_offsets: ") + rd_kafka_err2str(result));
  }
  std::map<int, long long> offsets;
  for (int i = 0; i < list->cnt; ++i)
    offsets[list->elems[i].partition] = list->elems[i].offset;
  rd_kafka_consumer_close(consumer.get());
  return offsets;
}

}  // namespace outbox::test
