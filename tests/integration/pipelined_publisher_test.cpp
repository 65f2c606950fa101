// relay.pipelined_chains' publisher against the test broker: a batch holding several versions
// of an aggregate goes all at once on a gapless producer of its own. A version whose
// predecessor could not be handed over is not handed over either; a batch not reported within
// the delivery timeout is purged and reads as timed out; a request refused for good stops the
// producer, which the next batch replaces; a batch whose versions would go to different
// partitions is left to the waves. Order through broker faults, relay kills and
// leader kills is proven end to end (relay_ordering_test.cpp, tests/kafka).
#include <catch2/catch.hpp>

#include <librdkafka/rdkafka.h>

#include <atomic>
#include <chrono>
#include <map>

#include "chained_batch.hpp"
#include "poll.hpp"
#include "publish/kafka_publisher.hpp"
#include "publish/pipelined_deliveries.hpp"
#include "test_kafka.hpp"

using namespace std::chrono_literals;
using outbox::DeliveryOutcome;
using outbox::DeliveryStatus;
using outbox::KafkaPublisher;
using outbox::KafkaSettings;
using outbox::PipelineSettings;
using outbox::TopicRouter;
using outbox::TopicTemplate;
using outbox::test::chained_batch;
using outbox::test::ChainedBatch;

namespace {

using Clock = std::chrono::steady_clock;

struct Pipelined {
  std::atomic<uint64_t> inversions{0};
  std::unique_ptr<KafkaPublisher> publisher;
};

void open_pipelined(Pipelined& out, const std::string& bootstrap, const std::string& topic,
                    std::vector<outbox::ScalarAt> properties = {}) {
  KafkaSettings kafka;
  kafka.bootstrap_servers = bootstrap;
  kafka.properties = std::move(properties);
  TopicRouter router(TopicTemplate::parse(topic).value(), {});
  PipelineSettings pipeline;
  pipeline.producers = 1;
  pipeline.inversions = &out.inversions;
  auto publisher = KafkaPublisher::create(kafka, std::move(router), {}, {}, pipeline);
  REQUIRE(publisher);
  out.publisher = std::move(publisher).value();
}

std::unique_ptr<outbox::InFlightDeliveries> send_pipelined(KafkaPublisher& publisher,
                                                           const ChainedBatch& batch,
                                                           std::chrono::seconds settle_in = 30s) {
  return publisher.send_chains(batch.events, batch.after, Clock::now() + 20s,
                               Clock::now() + settle_in, {});
}

std::vector<DeliveryOutcome> settle_pipelined(outbox::InFlightDeliveries& deliveries) {
  REQUIRE(deliveries.wait_until(Clock::now() + 60s));
  return deliveries.outcomes();
}

}  // namespace

TEST_CASE("a pipelined batch lands every version of each aggregate behind the one before it",
          "[pipelined]") {
  outbox::test::TestBroker broker(3, 4, {"outbox.pipe"});
  Pipelined pipelined;
  open_pipelined(pipelined, broker.bootstrap(), "outbox.{aggregate_type}");
  const ChainedBatch batch = chained_batch("in-order", 4, 25);
  auto deliveries = send_pipelined(*pipelined.publisher, batch);
  REQUIRE(deliveries);
  for (const DeliveryOutcome& outcome : settle_pipelined(*deliveries)) {
    INFO(outcome.error);
    CHECK(outcome.status == DeliveryStatus::kDelivered);
  }
  CHECK(pipelined.inversions == 0);
  // Read back by an independent client: 100 records, each aggregate's versions 1..25 in order.
  std::map<std::string, std::vector<std::string>> versions;
  for (const auto& record : outbox::test::read_topic(broker.bootstrap(), "outbox.pipe"))
    versions[record.key].push_back(record.value);
  REQUIRE(versions.size() == 4);
  for (const auto& [key, values] : versions) {
    INFO(key);
    REQUIRE(values.size() == 25);
    for (size_t v = 0; v < values.size(); ++v)
      CHECK(values[v] == R"({"v":)" + std::to_string(v + 1) + "}");
  }
}

TEST_CASE("a version whose predecessor could not be handed over is not handed over either",
          "[pipelined]") {
  outbox::test::TestBroker broker(3, 4, {"outbox.pipe"});
  Pipelined pipelined;
  // Refused by the producer itself, before any request: a local failure in the middle of a
  // hand-over, which a gap in the chain would follow.
  open_pipelined(pipelined, broker.bootstrap(), "outbox.{aggregate_type}",
                 {{"message.max.bytes", "2000", 0}});
  ChainedBatch batch = chained_batch("gap", 2, 4);
  batch.events[1].payload = R"({"blob":")" + std::string(5000, 'x') + R"("})";  // agg 1, v2
  batch.events[1].payload_bytes = batch.events[1].payload.size();
  auto deliveries = send_pipelined(*pipelined.publisher, batch);
  REQUIRE(deliveries);
  const auto outcomes = settle_pipelined(*deliveries);
  CHECK(outcomes[0].status == DeliveryStatus::kDelivered);
  CHECK(outcomes[1].status == DeliveryStatus::kNotDelivered);
  CHECK(outcomes[1].error_code == RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE);
  for (size_t i : {2, 3}) {
    INFO(outcomes[i].error);
    CHECK(outcomes[i].status == DeliveryStatus::kNotDelivered);
    CHECK(outcomes[i].error_code == RD_KAFKA_RESP_ERR__PREV_IN_PROGRESS);
    CHECK(outcomes[i].error.find("the version before it, event " + batch.events[i - 1].event_id +
                                 ", was not") != std::string::npos);
  }
  for (size_t i = 4; i < 8; ++i) {  // the other aggregate's chain
    INFO(outcomes[i].error);
    CHECK(outcomes[i].status == DeliveryStatus::kDelivered);
  }
  // On the topic: agg 1's version 1 alone, all of agg 2.
  std::map<std::string, int> records;
  for (const auto& record : outbox::test::read_topic(broker.bootstrap(), "outbox.pipe"))
    ++records[record.key];
  CHECK(records["gap-agg-1"] == 1);
  CHECK(records["gap-agg-2"] == 4);
}

TEST_CASE("a pipelined batch not reported within the delivery timeout is purged as timed out",
          "[pipelined]") {
  outbox::test::TestBroker broker(1, 1, {"outbox.pipe"});
  Pipelined pipelined;
  open_pipelined(pipelined, broker.bootstrap(), "outbox.{aggregate_type}",
                 {{"message.timeout.ms", "1500", 0}, {"retry.backoff.ms", "100", 0}});
  // Every produce request refused until cleared: librdkafka retries without end on a producer
  // without a message timeout, so only the relay's own deadline ends the batch.
  std::string errors = "errors Produce";
  for (int i = 0; i < 1000; ++i)
    errors += " NOT_ENOUGH_REPLICAS";
  broker.command(errors);
  const ChainedBatch batch = chained_batch("purged", 2, 5);
  auto deliveries = send_pipelined(*pipelined.publisher, batch);
  REQUIRE(deliveries);
  for (const DeliveryOutcome& outcome : settle_pipelined(*deliveries)) {
    INFO(outcome.error);
    CHECK(outcome.status != DeliveryStatus::kDelivered);
    // What the failure policy and the outage detection see: a timeout, as on the shared
    // producer, not a purge of the relay's own (which would read as a drain).
    CHECK(outcome.error_code == RD_KAFKA_RESP_ERR__MSG_TIMED_OUT);
    CHECK(outcome.error.find("purged") != std::string::npos);
  }
  CHECK(pipelined.inversions == 0);
  // The purged producer was retired; the next batch goes on a new one once the broker accepts.
  broker.command("clear Produce");
  const ChainedBatch next = chained_batch("after", 2, 5);
  auto again = send_pipelined(*pipelined.publisher, next);
  REQUIRE(again);
  for (const DeliveryOutcome& outcome : settle_pipelined(*again)) {
    INFO(outcome.error);
    CHECK(outcome.status == DeliveryStatus::kDelivered);
  }
}

TEST_CASE("a request refused for good mid-chain stops its producer, which the next batch replaces",
          "[pipelined]") {
  outbox::test::TestBroker broker(1, 1, {"outbox.pipe"});
  Pipelined pipelined;
  // One message per request: the broker's second answer refuses version 2 alone while
  // version 1 is written. What lands behind it is the broker's business: a real broker refuses
  // version 3 as out of sequence (proven on the real cluster, kafka_pipelined_refusal_test.cpp);
  // the test broker checks no sequence numbers and may append a request librdkafka had already
  // sent, so this test asserts only the producer's side.
  open_pipelined(pipelined, broker.bootstrap(), "outbox.{aggregate_type}",
                 {{"batch.num.messages", "1", 0}});
  broker.command("errors Produce NO_ERROR INVALID_RECORD");
  const ChainedBatch batch = chained_batch("refused", 1, 5);
  auto deliveries = send_pipelined(*pipelined.publisher, batch);
  REQUIRE(deliveries);
  const auto outcomes = settle_pipelined(*deliveries);
  for (const DeliveryOutcome& outcome : outcomes)
    UNSCOPED_INFO(outcome.error);
  CHECK(outcomes[0].status == DeliveryStatus::kDelivered);
  CHECK(outcomes[1].status == DeliveryStatus::kNotDelivered);
  CHECK(outcomes[1].error_code == RD_KAFKA_RESP_ERR_INVALID_RECORD);
  // The stopped producer was replaced: the next batch goes.
  broker.command("clear Produce");
  const ChainedBatch next = chained_batch("then", 1, 5);
  auto again = send_pipelined(*pipelined.publisher, next);
  REQUIRE(again);
  for (const DeliveryOutcome& outcome : settle_pipelined(*again)) {
    INFO(outcome.error);
    CHECK(outcome.status == DeliveryStatus::kDelivered);
  }
}

TEST_CASE("versions that would go to different partitions are left to the waves", "[pipelined]") {
  outbox::test::TestBroker broker(1, 2, {"outbox.Changed", "outbox.Renamed"});
  Pipelined pipelined;
  // A topic per event type: an aggregate's versions can go to two topics, with no common
  // partition sequence to keep them gapless.
  open_pipelined(pipelined, broker.bootstrap(), "outbox.{event_type}");
  ChainedBatch batch = chained_batch("split", 1, 3);
  CHECK(send_pipelined(*pipelined.publisher, batch) != nullptr);
  batch.events[2].event_type = "Renamed";
  CHECK(send_pipelined(*pipelined.publisher, batch) == nullptr);
}

TEST_CASE("count_inversions: an acknowledged version behind one of its chain that was not",
          "[pipelined]") {
  const auto outcome = [](DeliveryStatus status) {
    DeliveryOutcome out;
    out.status = status;
    return out;
  };
  const DeliveryStatus ok = DeliveryStatus::kDelivered;
  const DeliveryStatus lost = DeliveryStatus::kNotDelivered;
  const DeliveryStatus maybe = DeliveryStatus::kMaybeDelivered;
  // Two chains: 0 <- 1 <- 2 <- 3 and 4 <- 5.
  const std::vector<size_t> after{0, 0, 1, 2, 4, 4};
  std::vector<size_t> where;
  CHECK(outbox::count_inversions(
            {outcome(ok), outcome(ok), outcome(ok), outcome(ok), outcome(ok), outcome(ok)}, after,
            &where) == 0);
  // A cut chain (a prefix landed) is no inversion; a version landing after a gap is, and so is
  // every later one behind that gap.
  CHECK(outbox::count_inversions(
            {outcome(ok), outcome(ok), outcome(lost), outcome(maybe), outcome(lost), outcome(lost)},
            after) == 0);
  CHECK(outbox::count_inversions(
            {outcome(ok), outcome(maybe), outcome(ok), outcome(ok), outcome(lost), outcome(ok)},
            after, &where) == 3);
  CHECK(where == std::vector<size_t>{2, 3, 5});
}
