#include "received_event.hpp"

#include "trace_context.hpp"

namespace outbox::consumer {

const std::string* ReceivedEvent::header(std::string_view name) const {
  // The last header of that name wins.
  const std::string* found = nullptr;
  for (const auto& [header_name, header_value] : headers) {
    if (header_name == name) found = &header_value;
  }
  return found;
}

ReceivedEvent received_event_from(const rd_kafka_message_t& message) {
  ReceivedEvent event;
  event.topic = rd_kafka_topic_name(message.rkt);
  event.partition = message.partition;
  event.offset = message.offset;
  if (message.key != nullptr) {
    event.key.assign(static_cast<const char*>(message.key), message.key_len);
  }
  if (message.payload != nullptr) {
    event.payload.assign(static_cast<const char*>(message.payload), message.len);
  } else {
    event.null_value = true;
  }
  rd_kafka_headers_t* headers = nullptr;  // owned by the message
  if (rd_kafka_message_headers(&message, &headers) == RD_KAFKA_RESP_ERR_NO_ERROR) {
    const char* name = nullptr;
    const void* value = nullptr;
    size_t size = 0;
    for (size_t i = 0;
         rd_kafka_header_get_all(headers, i, &name, &value, &size) == RD_KAFKA_RESP_ERR_NO_ERROR;
         ++i) {
      event.headers.emplace_back(name, value == nullptr
                                           ? std::string()
                                           : std::string(static_cast<const char*>(value), size));
    }
  }
  return event;
}

std::string ReceivedEvent::trace_id() const {
  const std::string* parent = traceparent();
  if (parent == nullptr) return "";
  return trace_id_of(*parent).value_or("");
}

std::string ReceivedEvent::position() const {
  return topic + "/" + std::to_string(partition) + "@" + std::to_string(offset);
}

}  // namespace outbox::consumer
