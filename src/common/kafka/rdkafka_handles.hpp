#pragma once

#include <librdkafka/rdkafka.h>

#include <memory>
#include <string_view>

namespace outbox {

// Ownership of librdkafka's C objects. A conf passed to rd_kafka_new() belongs to the
// handle afterwards: release() it from its RdKafkaConf on success.
struct RdKafkaConfDeleter {
  void operator()(rd_kafka_conf_t* conf) const { rd_kafka_conf_destroy(conf); }
};
struct RdKafkaDeleter {
  void operator()(rd_kafka_t* handle) const { rd_kafka_destroy(handle); }
};
struct RdKafkaHeadersDeleter {
  void operator()(rd_kafka_headers_t* headers) const { rd_kafka_headers_destroy(headers); }
};
struct RdKafkaMetadataDeleter {
  void operator()(const rd_kafka_metadata_t* metadata) const {
    rd_kafka_metadata_destroy(metadata);
  }
};
struct RdKafkaMessageDeleter {
  void operator()(rd_kafka_message_t* message) const { rd_kafka_message_destroy(message); }
};
struct RdKafkaPartitionListDeleter {
  void operator()(rd_kafka_topic_partition_list_t* list) const {
    rd_kafka_topic_partition_list_destroy(list);
  }
};

struct RdKafkaErrorDeleter {
  void operator()(rd_kafka_error_t* error) const { rd_kafka_error_destroy(error); }
};

using RdKafkaConf = std::unique_ptr<rd_kafka_conf_t, RdKafkaConfDeleter>;
using RdKafkaHandle = std::unique_ptr<rd_kafka_t, RdKafkaDeleter>;
using RdKafkaHeaders = std::unique_ptr<rd_kafka_headers_t, RdKafkaHeadersDeleter>;
using RdKafkaMetadata = std::unique_ptr<const rd_kafka_metadata_t, RdKafkaMetadataDeleter>;
using RdKafkaMessage = std::unique_ptr<rd_kafka_message_t, RdKafkaMessageDeleter>;
using RdKafkaPartitionList =
    std::unique_ptr<rd_kafka_topic_partition_list_t, RdKafkaPartitionListDeleter>;
// What the transactional API returns: null for success.
using RdKafkaError = std::unique_ptr<rd_kafka_error_t, RdKafkaErrorDeleter>;

// Adds one header (names and values are length-delimited: neither needs a terminating NUL).
inline void add_header(rd_kafka_headers_t* headers, std::string_view name, std::string_view value) {
  rd_kafka_header_add(headers, name.data(), static_cast<ssize_t>(name.size()), value.data(),
                      static_cast<ssize_t>(value.size()));
}

// Routes librdkafka's own log lines (syslog levels) into the process logger: through the
// RdKafkaLogPump when one is installed (rdkafka_log_pump.hpp), else at once.
void route_rdkafka_logs(rd_kafka_conf_t* conf);
// The log callback route_rdkafka_logs sets (a null handle is named "-").
void log_from_rdkafka(const rd_kafka_t* handle, int level, const char* facility,
                      const char* message);

// Whether a librdkafka property holds a secret that must print as *****.
bool is_secret_kafka_property(const std::string& name);

}  // namespace outbox
