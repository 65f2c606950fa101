#include "topic_reads.hpp"

#include <array>
#include <stdexcept>

#include "harness/child_process.hpp"

namespace outbox::bench {

TopicWatch::TopicWatch(const std::string& bootstrap, const std::string& topic) : topic_(topic) {
  RdKafkaConf conf(rd_kafka_conf_new());
  std::array<char, 512> error{};
  for (const auto& [name, value] : std::vector<std::pair<std::string, std::string>>{
           {"bootstrap.servers", bootstrap}, {"log_level", "3"}}) {
    if (rd_kafka_conf_set(conf.get(), name.c_str(), value.c_str(), error.data(), error.size()) !=
        RD_KAFKA_CONF_OK) {
      throw std::runtime_error(std::string("TopicWatch: ") + error.data());
    }
  }
  client_.reset(rd_kafka_new(RD_KAFKA_PRODUCER, conf.get(), error.data(), error.size()));
  if (!client_) throw std::runtime_error(std::string("TopicWatch: ") + error.data());
  (void)conf.release();  // owned by the handle now
  const rd_kafka_metadata_t* raw = nullptr;
  rd_kafka_topic_t* handle = rd_kafka_topic_new(client_.get(), topic.c_str(), nullptr);
  const rd_kafka_resp_err_t result = rd_kafka_metadata(client_.get(), 0, handle, &raw, 10000);
  rd_kafka_topic_destroy(handle);
  if (result != RD_KAFKA_RESP_ERR_NO_ERROR) {
    throw std::runtime_error("TopicWatch: metadata of " + topic + ": " + rd_kafka_err2str(result));
  }
  const RdKafkaMetadata metadata(raw);
  if (metadata->topic_cnt != 1 || metadata->topics[0].err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    throw std::runtime_error("TopicWatch: no topic " + topic);
  }
  partitions_ = metadata->topics[0].partition_cnt;
}

long TopicWatch::messages() const {
  long total = 0;
  for (int partition = 0; partition < partitions_; ++partition) {
    int64_t low = 0;
    int64_t high = 0;
    const rd_kafka_resp_err_t result = rd_kafka_query_watermark_offsets(
        client_.get(), topic_.c_str(), partition, &low, &high, 10000);
    if (result != RD_KAFKA_RESP_ERR_NO_ERROR) {
      throw std::runtime_error("TopicWatch: watermarks of " + topic_ + ": " +
                               rd_kafka_err2str(result));
    }
    total += static_cast<long>(high);
  }
  return total;
}

std::vector<AppendedEvent> appended_events(const std::string& bootstrap, const std::string& topic,
                                           const std::string& id_header) {
  // \x1f separates the fields and \x1e the records: neither occurs in the headers.
  const harness::CommandResult result =
      harness::run_command({"kcat", "-b", bootstrap, "-C", "-t", topic, "-o", "beginning", "-e",
                            "-q", "-f", "%T\\x1f%h\\x1e"});
  if (result.status != 0) throw std::runtime_error("kcat failed: " + result.err);
  std::vector<AppendedEvent> events;
  const std::string key = id_header + "=";
  size_t begin = 0;
  for (size_t end; (end = result.out.find('\x1e', begin)) != std::string::npos; begin = end + 1) {
    const std::string_view record(result.out.data() + begin, end - begin);
    const size_t separator = record.find('\x1f');
    if (separator == std::string_view::npos) {
      throw std::runtime_error("unexpected kcat record: " + std::string(record));
    }
    const std::string_view headers = record.substr(separator + 1);
    // Headers print as name=value,name=value; the id is the one named `id_header`.
    size_t at = headers.substr(0, key.size()) == key ? 0 : headers.find("," + key);
    if (at == std::string_view::npos) {
      throw std::runtime_error("record without a " + id_header + " header: " + std::string(record));
    }
    at += at == 0 && headers[0] != ',' ? key.size() : key.size() + 1;
    const size_t stop = headers.find(',', at);
    AppendedEvent event;
    event.event_id =
        std::string(headers.substr(at, stop == std::string_view::npos ? stop : stop - at));
    event.append_ms = std::stoll(std::string(record.substr(0, separator)));
    events.push_back(std::move(event));
  }
  return events;
}

}  // namespace outbox::bench
