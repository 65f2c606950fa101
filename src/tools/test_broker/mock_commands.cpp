#include "mock_commands.hpp"

#include <librdkafka/rdkafka.h>

#include <charconv>
#include <map>
#include <optional>
#include <sstream>
#include <vector>

namespace outbox::test_broker {
namespace {

std::optional<long> number(const std::string& text) {
  long value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<int16_t> api_key(const std::string& text) {
  static const std::map<std::string, int16_t> kNames{
      {"Produce", 0},         {"Fetch", 1},       {"ListOffsets", 2},      {"Metadata", 3},
      {"OffsetCommit", 8},    {"OffsetFetch", 9}, {"FindCoordinator", 10}, {"JoinGroup", 11},
      {"Heartbeat", 12},      {"LeaveGroup", 13}, {"SyncGroup", 14},       {"ApiVersions", 18},
      {"InitProducerId", 22},
  };
  if (const auto found = kNames.find(text); found != kNames.end()) return found->second;
  if (const auto value = number(text)) return static_cast<int16_t>(*value);
  return std::nullopt;
}

std::optional<rd_kafka_resp_err_t> error_code(const std::string& text) {
  if (const auto value = number(text)) return static_cast<rd_kafka_resp_err_t>(*value);
  const rd_kafka_err_desc* descriptions = nullptr;
  size_t count = 0;
  rd_kafka_get_err_descs(&descriptions, &count);
  for (size_t i = 0; i < count; ++i) {
    if (descriptions[i].name != nullptr && text == descriptions[i].name) {
      return descriptions[i].code;
    }
  }
  return std::nullopt;
}

// Applies fn to one broker id or to all of them.
template <typename Fn>
std::string for_brokers(const std::string& which, int broker_count, Fn fn) {
  std::vector<int32_t> ids;
  if (which == "all") {
    for (int32_t id = 1; id <= broker_count; ++id)
      ids.push_back(id);
  } else if (const auto id = number(which); id && *id >= 1 && *id <= broker_count) {
    ids.push_back(static_cast<int32_t>(*id));
  } else {
    return "error: broker must be 1.." + std::to_string(broker_count) + " or all";
  }
  for (int32_t id : ids) {
    const rd_kafka_resp_err_t error = fn(id);
    if (error != RD_KAFKA_RESP_ERR_NO_ERROR) {
      return std::string("error: ") + rd_kafka_err2str(error);
    }
  }
  return "ok";
}

}  // namespace

std::string apply_command(rd_kafka_mock_cluster_t* cluster, int broker_count,
                          const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string word; in >> word;)
    words.push_back(word);
  if (words.empty()) return "error: empty command";
  const std::string& verb = words[0];

  if (verb == "ping") return "ok";
  if (verb == "topic" && (words.size() == 3 || words.size() == 4)) {
    const auto partitions = number(words[2]);
    const auto replication = words.size() == 4 ? number(words[3]) : std::optional<long>(1);
    if (!partitions || !replication) return "error: usage: topic NAME PARTITIONS [REPLICATION]";
    const rd_kafka_resp_err_t error = rd_kafka_mock_topic_create(
        cluster, words[1].c_str(), static_cast<int>(*partitions), static_cast<int>(*replication));
    return error ? std::string("error: ") + rd_kafka_err2str(error) : "ok";
  }
  if ((verb == "down" || verb == "up") && words.size() == 2) {
    return for_brokers(words[1], broker_count, [&](int32_t id) {
      return verb == "down" ? rd_kafka_mock_broker_set_down(cluster, id)
                            : rd_kafka_mock_broker_set_up(cluster, id);
    });
  }
  if (verb == "rtt" && words.size() == 3) {
    const auto ms = number(words[2]);
    if (!ms) return "error: usage: rtt BROKER|all MILLISECONDS";
    return for_brokers(words[1], broker_count, [&](int32_t id) {
      return rd_kafka_mock_broker_set_rtt(cluster, id, static_cast<int>(*ms));
    });
  }
  if (verb == "errors" && words.size() >= 3) {
    const auto key = api_key(words[1]);
    if (!key) return "error: unknown api key " + words[1];
    std::vector<rd_kafka_resp_err_t> errors;
    for (size_t i = 2; i < words.size(); ++i) {
      const auto code = error_code(words[i]);
      if (!code) return "error: unknown error " + words[i];
      errors.push_back(*code);
    }
    rd_kafka_mock_push_request_errors_array(cluster, *key, errors.size(), errors.data());
    return "ok";
  }
  if (verb == "topic-error" && words.size() == 3) {
    const auto code = error_code(words[2]);
    if (!code) return "error: unknown error " + words[2];
    rd_kafka_mock_topic_set_error(cluster, words[1].c_str(), *code);
    return "ok";
  }
  if (verb == "leader" && words.size() == 4) {
    const auto partition = number(words[2]);
    // "none" is the mock's -1 (no leader); any other id must be one of this cluster's
    // brokers, so that a test's typo is an error rather than some other partition state.
    const auto broker = words[3] == "none" ? std::optional<long>(-1) : number(words[3]);
    if (!partition || *partition < 0 || !broker ||
        (*broker != -1 && (*broker < 1 || *broker > broker_count))) {
      return "error: usage: leader TOPIC PARTITION BROKER|none (BROKER 1.." +
             std::to_string(broker_count) + ")";
    }
    const rd_kafka_resp_err_t error = rd_kafka_mock_partition_set_leader(
        cluster, words[1].c_str(), static_cast<int32_t>(*partition), static_cast<int32_t>(*broker));
    return error ? std::string("error: ") + rd_kafka_err2str(error) : "ok";
  }
  if (verb == "clear" && words.size() == 2) {
    const auto key = api_key(words[1]);
    if (!key) return "error: unknown api key " + words[1];
    rd_kafka_mock_clear_request_errors(cluster, *key);
    return "ok";
  }
  return "error: unknown command: " + line;
}

}  // namespace outbox::test_broker
