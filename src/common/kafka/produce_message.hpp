#pragma once

#include <librdkafka/rdkafka.h>

#include <string>
#include <string_view>

namespace outbox {

// rd_kafka_producev for one message: topic, key, value, headers (owned by the message once
// this returns NO_ERROR) and the opaque its delivery report carries. A null key or value (a
// tombstone) is a view with data() == nullptr. `flags`: 0 sends the value from the caller's
// buffer, which must then stay unchanged until the report; RD_KAFKA_MSG_F_COPY copies it.
rd_kafka_resp_err_t produce_message(rd_kafka_t* producer, const std::string& topic,
                                    std::string_view key, std::string_view value,
                                    rd_kafka_headers_t* headers, void* opaque, int flags);

}  // namespace outbox
