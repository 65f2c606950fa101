// The topic template renderer (src/relay/publish/topic_router.hpp): arbitrary templates and
// arbitrary row data. A template that parses renders only topic characters of its own; routing
// returns either a valid Kafka topic name or an error naming the event, never an illegal name.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdlib>
#include <string>

#include "kafka/topic_name.hpp"
#include "publish/topic_router.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider input(data, size);
  const std::string fallback_text = input.ConsumeRandomLengthString(300);
  const std::string override_text = input.ConsumeRandomLengthString(300);
  outbox::OutboxEvent event;
  event.event_id = input.ConsumeRandomLengthString(36);
  event.aggregate_type = input.ConsumeRandomLengthString(300);
  event.event_type = input.ConsumeRemainingBytesAsString();

  outbox::Outcome<outbox::TopicTemplate> fallback = outbox::TopicTemplate::parse(fallback_text);
  if (!fallback) {
    if (fallback.error().message.empty()) std::abort();
    return 0;
  }
  if (fallback.value().text() != fallback_text) std::abort();
  // With empty fields, what renders is the template's literal text: topic characters only.
  outbox::OutboxEvent empty;
  for (const char c : fallback.value().render(empty)) {
    if (!outbox::is_topic_char(c)) std::abort();
  }

  std::map<std::string, outbox::TopicTemplate> by_type;
  if (outbox::Outcome<outbox::TopicTemplate> parsed = outbox::TopicTemplate::parse(override_text);
      parsed) {
    by_type.emplace(event.aggregate_type, std::move(parsed).value());
  }
  const outbox::TopicRouter router(std::move(fallback).value(), std::move(by_type));
  const outbox::Outcome<std::string> topic = router.route(event);
  if (topic) {
    if (!outbox::is_valid_topic_name(topic.value())) std::abort();
  } else if (topic.error().message.find(event.event_id) == std::string::npos) {
    std::abort();
  }
  return 0;
}
