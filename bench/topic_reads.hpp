#pragma once

#include <string>
#include <vector>

#include "kafka/rdkafka_handles.hpp"

namespace outbox::bench {

// How many messages a topic holds now (the sum of its partitions' high watermarks; the bench's
// topics are fresh and never trimmed), asked of the brokers by a librdkafka client of its own.
class TopicWatch {
 public:
  TopicWatch(const std::string& bootstrap, const std::string& topic);
  long messages() const;

 private:
  RdKafkaHandle client_;
  std::string topic_;
  int partitions_ = 0;
};

// One message as an independent client (kcat) read it back: the event id (from the header
// named `id_header`) and the broker's append time (the topics are created with
// message.timestamp.type=LogAppendTime, so the timestamp is the leader's clock when it appended
// the batch, whatever the producer set).
struct AppendedEvent {
  std::string event_id;
  long long append_ms = 0;
};

// Every message of `topic`, from the beginning, read with kcat.
std::vector<AppendedEvent> appended_events(const std::string& bootstrap, const std::string& topic,
                                           const std::string& id_header);

}  // namespace outbox::bench
