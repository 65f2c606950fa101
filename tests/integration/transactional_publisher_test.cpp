// relay.ordering: transactional's publisher against the test broker: a batch is one Kafka
// transaction that commits only when every message was acknowledged; one failed message
// aborts all of it (the others come back not delivered, released without an attempt). Fencing
// (a newer producer with the same transactional.id) is proven on the real cluster only
// (tests/kafka): librdkafka 2.0.2's mock cluster does not fence, the old producer's next
// transaction commits there.
#include <catch2/catch.hpp>

#include <librdkafka/rdkafka.h>

#include <chrono>

#include "publish/kafka_publisher.hpp"
#include "test_kafka.hpp"

using namespace std::chrono_literals;
using outbox::DeliveryOutcome;
using outbox::DeliveryStatus;
using outbox::KafkaPublisher;
using outbox::KafkaSettings;
using outbox::OutboxEvent;
using outbox::TopicRouter;
using outbox::TopicTemplate;
using outbox::TransactionSettings;

namespace {

std::unique_ptr<KafkaPublisher> transactional_publisher(const std::string& bootstrap,
                                                        const std::string& prefix) {
  KafkaSettings kafka;
  kafka.bootstrap_servers = bootstrap;
  kafka.properties.push_back({"message.timeout.ms", "5000", 0});
  TopicRouter router(TopicTemplate::parse("outbox.{aggregate_type}").value(), {});
  TransactionSettings transactions;
  transactions.id_prefix = prefix;
  transactions.producers = 1;
  transactions.timeout = std::chrono::seconds(20);
  auto publisher = KafkaPublisher::create(kafka, std::move(router), {}, transactions);
  REQUIRE(publisher);
  return std::move(publisher).value();
}

std::vector<OutboxEvent> events(const std::string& prefix, int count,
                                const std::string& aggregate_type = "tx") {
  std::vector<OutboxEvent> out;
  for (int i = 1; i <= count; ++i) {
    OutboxEvent event;
    event.event_id = prefix + "-" + std::to_string(i);
    event.aggregate_type = aggregate_type;
    event.aggregate_id = "agg-1";
    event.event_type = "Changed";
    event.event_version = i;
    event.payload = R"({"v":)" + std::to_string(i) + "}";
    event.payload_bytes = event.payload.size();
    out.push_back(std::move(event));
  }
  return out;
}

std::vector<DeliveryOutcome> settle(outbox::InFlightDeliveries& deliveries) {
  REQUIRE(deliveries.wait_until(std::chrono::steady_clock::now() + 60s));
  return deliveries.outcomes();
}

}  // namespace

TEST_CASE("a transactional batch commits when every message was acknowledged", "[transactional]") {
  outbox::test::TestBroker broker(3, 4, {"outbox.tx"});
  auto publisher = transactional_publisher(broker.bootstrap(), "tx-commit");
  const auto batch = events("c", 5);
  auto deliveries = publisher->send(batch, std::chrono::steady_clock::now() + 20s, {});
  for (const DeliveryOutcome& outcome : settle(*deliveries)) {
    INFO(outcome.error);
    CHECK(outcome.status == DeliveryStatus::kDelivered);
  }
  // Read back by an independent client, read_committed: all five, in version order.
  const auto records = outbox::test::read_topic(broker.bootstrap(), "outbox.tx");
  REQUIRE(records.size() == 5);
  for (size_t i = 0; i < records.size(); ++i)
    CHECK(records[i].value == batch[i].payload);
}

TEST_CASE("one message that cannot be sent aborts its whole transaction, the rest not attempted",
          "[transactional]") {
  outbox::test::TestBroker broker(3, 4, {"outbox.tx"});
  auto publisher = transactional_publisher(broker.bootstrap(), "tx-abort");
  auto batch = events("a", 4);
  // Version 3 renders an illegal topic name: refused before the producer, the event's own fault.
  batch[2].aggregate_type = "no spaces allowed";
  auto deliveries = publisher->send(batch, std::chrono::steady_clock::now() + 20s, {});
  const auto outcomes = settle(*deliveries);
  CHECK(outcomes[2].error_code == RD_KAFKA_RESP_ERR_TOPIC_EXCEPTION);
  for (size_t i : {0, 1, 3}) {
    INFO(outcomes[i].error);
    CHECK(outcomes[i].status == DeliveryStatus::kNotDelivered);
    CHECK(outcomes[i].error_code == RD_KAFKA_RESP_ERR__PREV_IN_PROGRESS);
    CHECK(outcomes[i].error.find("aborted with its transaction") != std::string::npos);
  }
  // The producer is usable again: the next batch commits. Its events are named, not a
  // temporary: the producer sends payloads from their buffers until the reports came.
  const auto next_batch = events("b", 2);
  auto next = publisher->send(next_batch, std::chrono::steady_clock::now() + 20s, {});
  for (const DeliveryOutcome& outcome : settle(*next)) {
    INFO(outcome.error);
    CHECK(outcome.status == DeliveryStatus::kDelivered);
  }
}
