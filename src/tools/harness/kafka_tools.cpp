#include "harness/kafka_tools.hpp"

#include <algorithm>
#include <array>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include "harness/child_process.hpp"
#include "harness/service_configs.hpp"
#include "harness/temp_dir.hpp"
#include "kafka/rdkafka_handles.hpp"

namespace outbox::harness {
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

std::string decode_base64(std::string_view text) {
  static constexpr std::string_view kAlphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  unsigned buffer = 0;
  int bits = 0;
  for (const char c : text) {
    if (c == '=') break;
    const size_t digit = kAlphabet.find(c);
    if (digit == std::string_view::npos)
      throw std::runtime_error("not base64: " + std::string(text));
    buffer = (buffer << 6) | static_cast<unsigned>(digit);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buffer >> bits) & 0xff));
    }
  }
  return out;
}

// "<partition> <offset>" -> the record's headers, from kcat -J through jq.
std::map<std::pair<int, long long>, std::vector<std::pair<std::string, std::optional<std::string>>>>
read_headers_exact(const std::string& bootstrap, const std::string& topic) {
  const CommandResult json = run_command(
      {"kcat", "-b", bootstrap, "-C", "-t", topic, "-o", "beginning", "-e", "-q", "-J"});
  if (json.status != 0) throw std::runtime_error("kcat -J failed: " + json.err);
  // One line per record: partition, offset, then name and value of each header as "b" + its
  // base64 (so an empty one is "b"), "-" for a header without a value.
  const CommandResult lines = run_command(
      {"jq", "-r",
       "\"\\(.partition) \\(.offset) \" + ([(.headers // [])[] | if . == null then \"-\" else "
       "\"b\" + @base64 end] | join(\" \"))"},
      json.out);
  if (lines.status != 0) throw std::runtime_error("jq failed on kcat -J output: " + lines.err);
  std::map<std::pair<int, long long>,
           std::vector<std::pair<std::string, std::optional<std::string>>>>
      out;
  std::istringstream in(lines.out);
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    int partition = -1;
    long long offset = -1;
    fields >> partition >> offset;
    auto& headers = out[{partition, offset}];
    for (std::string name, value; fields >> name >> value;) {
      headers.emplace_back(
          decode_base64(name.substr(1)),
          value == "-" ? std::nullopt : std::optional(decode_base64(value.substr(1))));
    }
  }
  return out;
}

// `length` bytes of `text` from `at` (advanced), or nullopt for length -1 (a null field).
std::optional<std::string> take_field(const std::string& text, size_t& at, long long length) {
  if (length < 0) return std::nullopt;
  if (at + static_cast<size_t>(length) > text.size()) {
    throw std::runtime_error("kcat output ends inside a record");
  }
  std::string field = text.substr(at, static_cast<size_t>(length));
  at += static_cast<size_t>(length);
  return field;
}

}  // namespace

std::optional<std::string> ExactRecord::header(const std::string& name) const {
  for (const auto& [header_name, header_value] : headers) {
    if (header_name == name) return header_value;
  }
  return std::nullopt;
}

std::vector<ExactRecord> read_topic_exact(const std::string& bootstrap, const std::string& topic) {
  // Each record: "<partition> <offset> <key length> <value length>\n<key><value>", the lengths
  // -1 for a null key or value.
  const CommandResult result = run_command({"kcat", "-b", bootstrap, "-C", "-t", topic, "-o",
                                            "beginning", "-e", "-q", "-f", "%p %o %K %S\n%k%s"});
  if (result.status != 0) throw std::runtime_error("kcat failed: " + result.err);
  auto headers = read_headers_exact(bootstrap, topic);
  std::vector<ExactRecord> records;
  for (size_t at = 0; at < result.out.size();) {
    const size_t end = result.out.find('\n', at);
    if (end == std::string::npos) throw std::runtime_error("kcat output ends inside a record");
    std::istringstream prefix(result.out.substr(at, end - at));
    ExactRecord record;
    long long key_length = 0;
    long long value_length = 0;
    if (!(prefix >> record.partition >> record.offset >> key_length >> value_length)) {
      throw std::runtime_error("unexpected kcat record prefix: " + result.out.substr(at, end - at));
    }
    at = end + 1;
    record.key = take_field(result.out, at, key_length);
    record.value = take_field(result.out, at, value_length);
    record.headers = std::move(headers[{record.partition, record.offset}]);
    records.push_back(std::move(record));
  }
  std::sort(records.begin(), records.end(), [](const ExactRecord& a, const ExactRecord& b) {
    return std::pair(a.partition, a.offset) < std::pair(b.partition, b.offset);
  });
  return records;
}

std::vector<KafkaRecord> read_topic(const std::string& bootstrap, const std::string& topic,
                                    Isolation isolation) {
  // \x1f separates fields and \x1e records: neither occurs in keys, headers or JSON payloads.
  const CommandResult result =
      run_command({"kcat", "-b", bootstrap, "-C", "-t", topic, "-o", "beginning", "-e", "-q", "-X",
                   isolation == Isolation::kReadCommitted ? "isolation.level=read_committed"
                                                          : "isolation.level=read_uncommitted",
                   "-f", R"(%t\x1f%p\x1f%o\x1f%T\x1f%k\x1f%h\x1f%s\x1e)"});
  if (result.status != 0) throw std::runtime_error("kcat failed: " + result.err);
  std::vector<KafkaRecord> records;
  for (const std::string& line : split(result.out, '\x1e')) {
    if (line.empty()) continue;
    const std::vector<std::string> fields = split(line, '\x1f');
    if (fields.size() != 7) throw std::runtime_error("unexpected kcat record: " + line);
    KafkaRecord record;
    record.topic = fields[0];
    record.partition = std::stoi(fields[1]);
    record.offset = std::stoll(fields[2]);
    record.timestamp_ms = std::stoll(fields[3]);
    record.key = fields[4];
    for (const std::string& header : split(fields[5], ',')) {
      const size_t eq = header.find('=');
      if (eq != std::string::npos) record.headers[header.substr(0, eq)] = header.substr(eq + 1);
    }
    record.value = fields[6];
    records.push_back(std::move(record));
  }
  return records;
}

bool topic_exists(const std::string& bootstrap, const std::string& topic) {
  const CommandResult metadata = run_command({"kcat", "-L", "-b", bootstrap, "-t", topic, "-J"});
  if (metadata.status != 0) throw std::runtime_error("kcat -L failed: " + metadata.err);
  // One literal split over two lines, named so it is not read as a missing comma.
  const char* const exactly_one_healthy =
      "[.topics[] | select(.topic == $t and .error == null and "
      "(.partitions | length) > 0)] | length == 1";
  const CommandResult verdict =
      run_command({"jq", "-e", "--arg", "t", topic, exactly_one_healthy}, metadata.out);
  return verdict.status == 0;
}

void produce_with_kcat(const std::string& bootstrap, const std::string& topic, int partition,
                       const std::string& key, const std::vector<std::string>& headers,
                       const std::vector<std::string>& payloads) {
  std::vector<std::string> argv{
      "kcat", "-P", "-b", bootstrap, "-t", topic, "-p", std::to_string(partition), "-k", key};
  for (const std::string& header : headers) {
    argv.emplace_back("-H");
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
  std::vector<std::pair<std::string, std::string>> properties{
      {"bootstrap.servers", bootstrap}, {"group.id", group}, {"log_level", "3"}};
  // On a SASL_SSL test cluster, the same credentials as every other client of the test.
  if (const KafkaClientSecurity security = kafka_client_security();
      !security.password_file.empty()) {
    std::string password = read_text_file(security.password_file);
    while (!password.empty() && password.back() == '\n')
      password.pop_back();
    properties.insert(properties.end(), {{"security.protocol", "SASL_SSL"},
                                         {"sasl.mechanisms", security.mechanism},
                                         {"sasl.username", security.username},
                                         {"sasl.password", password},
                                         {"ssl.ca.location", security.ca_file}});
  }
  for (const auto& [name, value] : properties) {
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

}  // namespace outbox::harness
