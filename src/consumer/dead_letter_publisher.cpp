#include "dead_letter_publisher.hpp"

#include <array>

namespace outbox::consumer {
namespace {

// What the delivery report of one dead letter said; lives on publish()'s stack.
struct PendingDelivery {
  bool reported = false;
  rd_kafka_resp_err_t error = RD_KAFKA_RESP_ERR_NO_ERROR;
};

// Runs on the thread calling rd_kafka_poll(), i.e. inside publish().
void on_delivery(rd_kafka_t* /*producer*/, const rd_kafka_message_t* message, void* /*opaque*/) {
  auto* pending = static_cast<PendingDelivery*>(message->_private);
  pending->error = message->err;
  pending->reported = true;
}

// rd_kafka_producev's RD_KAFKA_V_* macros expand to C casts, and (for type checks) to GNU
// statement expressions, which clang's -Wpedantic reports where they are expanded.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wold-style-cast"
#ifdef __clang__
#pragma clang diagnostic ignored "-Wgnu-statement-expression"
#endif
rd_kafka_resp_err_t produce(rd_kafka_t* producer, const std::string& topic,
                            const ReceivedEvent& event, rd_kafka_headers_t* headers,
                            PendingDelivery* pending) {
  return rd_kafka_producev(
      producer, RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
      RD_KAFKA_V_KEY(event.key.data(), event.key.size()),
      RD_KAFKA_V_VALUE(const_cast<char*>(event.payload.data()), event.payload.size()),
      RD_KAFKA_V_HEADERS(headers), RD_KAFKA_V_OPAQUE(pending), RD_KAFKA_V_END);
}
#pragma GCC diagnostic pop

}  // namespace

Outcome<std::unique_ptr<DeadLetterPublisher>> DeadLetterPublisher::create(
    const ConsumerSettings& settings) {
  Outcome<RdKafkaConf> conf = make_kafka_conf(dead_letter_producer_properties(settings));
  if (!conf) return Error{"dead-letter producer: " + conf.error().message};
  rd_kafka_conf_set_dr_msg_cb(conf.value().get(), on_delivery);
  route_rdkafka_logs(conf.value().get());
  std::array<char, 512> error{};
  rd_kafka_t* handle =
      rd_kafka_new(RD_KAFKA_PRODUCER, conf.value().get(), error.data(), error.size());
  if (handle == nullptr) {
    return Error{std::string("cannot create the dead-letter producer: ") + error.data()};
  }
  (void)conf.value().release();  // owned by the handle now
  return std::unique_ptr<DeadLetterPublisher>(new DeadLetterPublisher(
      settings.consumer.dead_letter_topic, settings.consumer.name, RdKafkaHandle(handle)));
}

DeadLetterPublisher::DeadLetterPublisher(std::string topic, std::string consumer_name,
                                         RdKafkaHandle producer)
    : topic_(std::move(topic)),
      consumer_name_(std::move(consumer_name)),
      producer_(std::move(producer)) {}

Status DeadLetterPublisher::publish(const ReceivedEvent& event, const std::string& reason) {
  RdKafkaHeaders headers(rd_kafka_headers_new(event.headers.size() + 3));
  for (const auto& [name, value] : event.headers)
    add_header(headers.get(), name, value);
  add_header(headers.get(), kDeadLetterReasonHeader, reason);
  add_header(headers.get(), kDeadLetterConsumerHeader, consumer_name_);
  add_header(headers.get(), kDeadLetterSourceHeader, event.position());

  PendingDelivery pending;
  const rd_kafka_resp_err_t queued =
      produce(producer_.get(), topic_, event, headers.get(), &pending);
  if (queued != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return Error{"dead letter to " + topic_ + " not queued: " + rd_kafka_err2str(queued)};
  }
  (void)headers.release();  // owned by the message now
  // The report always comes, within message.timeout.ms: delivered, failed or timed out.
  while (!pending.reported)
    rd_kafka_poll(producer_.get(), 100);
  if (pending.error != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return Error{"dead letter to " + topic_ + " not confirmed: " + rd_kafka_err2str(pending.error)};
  }
  return ok_status();
}

}  // namespace outbox::consumer
