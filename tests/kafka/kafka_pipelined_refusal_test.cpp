// relay.pipelined_chains on the real cluster: the broker refuses one version of a chain for
// good (a record larger than the topic's max.message.bytes) while the versions behind it are
// already in flight, one request each. The gapless producer stops, and the broker's own
// sequence check refuses every later request of that producer id: nothing behind the refused
// version lands, so no version ever overtakes its predecessor. The test broker cannot show
// this (it checks no sequence numbers); read back with kcat.
#include <catch2/catch.hpp>

#include <librdkafka/rdkafka.h>

#include <atomic>
#include <chrono>
#include <iostream>

#include "chained_batch.hpp"
#include "publish/kafka_publisher.hpp"
#include "test_kafka.hpp"

using namespace std::chrono_literals;
using namespace outbox::test;
using outbox::DeliveryOutcome;
using outbox::DeliveryStatus;
using outbox::test::chained_batch;
using outbox::test::ChainedBatch;

namespace {

using Clock = std::chrono::steady_clock;

std::vector<DeliveryOutcome> send_and_settle(outbox::KafkaPublisher& publisher,
                                             const ChainedBatch& chain) {
  auto deliveries =
      publisher.send_chains(chain.events, chain.after, Clock::now() + 20s, Clock::now() + 60s, {});
  REQUIRE(deliveries);
  REQUIRE(deliveries->wait_until(Clock::now() + 90s));
  return deliveries->outcomes();
}

}  // namespace

TEST_CASE("a chain version the real broker refuses for good: nothing behind it lands",
          "[kafka][pipelined]") {
  TestKafkaCluster cluster;
  // Records above 2,000 bytes are refused by the broker (MESSAGE_TOO_LARGE), not by the
  // producer, whose own limit stays at its default of 1 MB.
  cluster->create_topic("outbox.pipe", 1, {"max.message.bytes=2000"});
  outbox::KafkaSettings kafka;
  kafka.bootstrap_servers = cluster.bootstrap();
  // One message per request, so that versions 3..6 are requests of their own, in flight behind
  // version 2's when its refusal comes.
  kafka.properties = {{"batch.num.messages", "1", 0}, {"linger.ms", "0", 0}};
  std::atomic<uint64_t> inversions{0};
  outbox::PipelineSettings pipeline;
  pipeline.producers = 1;
  pipeline.inversions = &inversions;
  auto created = outbox::KafkaPublisher::create(
      kafka, outbox::TopicRouter(outbox::TopicTemplate::parse("outbox.pipe").value(), {}), {}, {},
      pipeline);
  REQUIRE(created);
  auto publisher = std::move(created).value();

  ChainedBatch refused = chained_batch("refused", 1, 6);
  refused.events[1].payload = R"({"blob":")" + std::string(5000, 'x') + R"("})";
  refused.events[1].payload_bytes = refused.events[1].payload.size();
  const auto outcomes = send_and_settle(*publisher, refused);
  for (const DeliveryOutcome& outcome : outcomes)
    UNSCOPED_INFO(outcome.error);
  CHECK(outcomes[0].status == DeliveryStatus::kDelivered);
  CHECK(outcomes[1].status == DeliveryStatus::kNotDelivered);
  CHECK(outcomes[1].error_code == RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE);
  size_t behind_delivered = 0;
  std::string behind_errors;  // for the figures: how each version behind it ended
  for (size_t i = 2; i < outcomes.size(); ++i) {
    if (outcomes[i].status == DeliveryStatus::kDelivered) ++behind_delivered;
    behind_errors += (i > 2 ? ", " : "") + outcomes[i].error.substr(0, outcomes[i].error.find(':'));
  }
  CHECK(behind_delivered == 0);
  CHECK(inversions == 0);
  // On the topic, read by kcat: version 1 alone.
  const auto first = read_topic(cluster.bootstrap(), "outbox.pipe");
  REQUIRE(first.size() == 1);
  CHECK(first[0].value == refused.events[0].payload);

  // The stopped producer was replaced: the next chain lands whole, in order, behind it.
  const ChainedBatch next = chained_batch("then", 1, 6);
  for (const DeliveryOutcome& outcome : send_and_settle(*publisher, next)) {
    INFO(outcome.error);
    CHECK(outcome.status == DeliveryStatus::kDelivered);
  }
  const auto all = read_topic(cluster.bootstrap(), "outbox.pipe");
  REQUIRE(all.size() == 7);
  for (size_t v = 0; v < next.events.size(); ++v)
    CHECK(all[v + 1].value == next.events[v].payload);
  std::cout << "[figures] pipelined chain refused mid-way on the Kafka " << cluster->version()
            << " cluster: version 2 " << outcomes[1].error << "; versions 3..6 delivered "
            << behind_delivered << " (" << behind_errors << "); topic then held " << first.size()
            << " record, and " << all.size() << " after the next chain\n";
}
