#include "kafka/produce_message.hpp"

namespace outbox {

// rd_kafka_producev's RD_KAFKA_V_* macros expand to C casts, and (for type checks) to GNU
// statement expressions, which clang's -Wpedantic reports where they are expanded.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wold-style-cast"
#ifdef __clang__
#pragma clang diagnostic ignored "-Wgnu-statement-expression"
#endif
rd_kafka_resp_err_t produce_message(rd_kafka_t* producer, const std::string& topic,
                                    std::string_view key, std::string_view value,
                                    rd_kafka_headers_t* headers, void* opaque, int flags) {
  // The key is always copied (RD_KAFKA_V_KEY).
  return rd_kafka_producev(producer, RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_MSGFLAGS(flags),
                           RD_KAFKA_V_KEY(key.data(), key.size()),
                           RD_KAFKA_V_VALUE(const_cast<char*>(value.data()), value.size()),
                           RD_KAFKA_V_HEADERS(headers), RD_KAFKA_V_OPAQUE(opaque), RD_KAFKA_V_END);
}
#pragma GCC diagnostic pop

}  // namespace outbox
