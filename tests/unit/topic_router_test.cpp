// Topic routing: templates over the row, overrides per aggregate type, and a clear per-event
// error (never a crash, never a silent drop) when row data renders an illegal topic name.
#include <catch2/catch.hpp>

#include "publish/topic_router.hpp"

using outbox::OutboxEvent;
using outbox::TopicRouter;
using outbox::TopicTemplate;

namespace {

OutboxEvent event(const std::string& aggregate_type, const std::string& event_type) {
  OutboxEvent e;
  e.event_id = "0b7e6f3c-1a2b-4c5d-8e9f-001122334455";
  e.aggregate_type = aggregate_type;
  e.event_type = event_type;
  return e;
}

TopicRouter router(const std::string& fallback, std::map<std::string, std::string> overrides = {}) {
  std::map<std::string, TopicTemplate> parsed;
  for (const auto& [type, text] : overrides)
    parsed.emplace(type, TopicTemplate::parse(text).value());
  return TopicRouter(TopicTemplate::parse(fallback).value(), std::move(parsed));
}

}  // namespace

TEST_CASE("the default template routes by aggregate type", "[routing]") {
  const TopicRouter r = router("outbox.{aggregate_type}");
  CHECK(r.route(event("order", "ORDER_ACCEPTED")).value() == "outbox.order");
  CHECK(r.route(event("payment", "PAID")).value() == "outbox.payment");
}

TEST_CASE("templates combine fields and overrides win per aggregate type", "[routing]") {
  const TopicRouter r =
      router("events.{aggregate_type}.{event_type}", {{"payment", "payments.v1"}});
  CHECK(r.route(event("order", "ORDER_ACCEPTED")).value() == "events.order.ORDER_ACCEPTED");
  CHECK(r.route(event("payment", "PAID")).value() == "payments.v1");
}

TEST_CASE("bad templates are refused when the config is read", "[routing]") {
  CHECK(TopicTemplate::parse("outbox.{aggregate_id}").error().message ==
        "unknown placeholder {aggregate_id} in \"outbox.{aggregate_id}\" (known: "
        "{aggregate_type}, {event_type})");
  CHECK(TopicTemplate::parse("outbox.{aggregate_type").error().message ==
        "unclosed \"{\" in \"outbox.{aggregate_type\"");
  CHECK(TopicTemplate::parse("outbox events").error().message ==
        "\"outbox events\" contains ' ', which Kafka does not allow in a topic name (a-z A-Z "
        "0-9 . _ -)");
  CHECK(TopicTemplate::parse("").error().message == "must not be empty");
}

TEST_CASE("row data that renders an illegal topic is an error naming the event", "[routing]") {
  const TopicRouter r = router("outbox.{aggregate_type}", {{"bad", "{event_type}"}});
  CHECK(r.route(event("sales order", "X")).error().message ==
        "event 0b7e6f3c-1a2b-4c5d-8e9f-001122334455: topic \"outbox.sales order\" (from "
        "kafka.topic \"outbox.{aggregate_type}\") is not a valid Kafka topic name: 1-249 "
        "characters of a-z A-Z 0-9 . _ -");
  CHECK(r.route(event("bad", "..")).error().message ==
        "event 0b7e6f3c-1a2b-4c5d-8e9f-001122334455: topic \"..\" (from kafka.topics.bad "
        "\"{event_type}\") is not a valid Kafka topic name: 1-249 characters of a-z A-Z 0-9 . _ -");
  CHECK_FALSE(r.route(event(std::string(300, 'a'), "X")).ok());
}
