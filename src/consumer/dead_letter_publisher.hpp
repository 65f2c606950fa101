#pragma once

#include <memory>
#include <string>

#include "consumer_settings.hpp"
#include "kafka/rdkafka_handles.hpp"
#include "outcome.hpp"
#include "received_event.hpp"

namespace outbox::consumer {

// Headers a dead letter carries besides the original message's own.
inline constexpr const char* kDeadLetterReasonHeader = "dead_letter_reason";
inline constexpr const char* kDeadLetterConsumerHeader = "dead_letter_consumer";
inline constexpr const char* kDeadLetterSourceHeader =
    "dead_letter_source";  // topic/partition@offset

// Publishes messages the consumer cannot apply to the dead-letter topic and waits for the
// broker's confirmation, so the caller commits the original's offset only once the dead letter
// is stored (an unconfirmed dead letter leaves the original unacknowledged, to be tried again).
// Idempotent producer, acks=all. Used from the consumer's thread only: delivery reports are
// served by publish() itself.
class DeadLetterPublisher {
 public:
  static Outcome<std::unique_ptr<DeadLetterPublisher>> create(const ConsumerSettings& settings);

  // A copy of `event` (key, value, headers) plus the reason, this consumer's name and the
  // original position as headers. Waits at most message.timeout.ms for the confirmation.
  Status publish(const ReceivedEvent& event, const std::string& reason);

 private:
  DeadLetterPublisher(std::string topic, std::string consumer_name, RdKafkaHandle producer);

  std::string topic_;
  std::string consumer_name_;
  RdKafkaHandle producer_;
};

}  // namespace outbox::consumer
