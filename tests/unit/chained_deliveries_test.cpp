// ChainedDeliveries: a version goes to the producer only once the one before it was
// acknowledged, and nothing behind a version that was not.
#include "publish/chained_deliveries.hpp"

#include <librdkafka/rdkafka.h>
#include <catch2/catch.hpp>

#include <atomic>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "gated_deliveries.hpp"
#include "poll.hpp"
#include "publish/failure_kind.hpp"

using outbox::ChainedDeliveries;
using outbox::DeliveryOutcome;
using outbox::DeliveryStatus;
using outbox::OutboxEvent;
using namespace std::chrono_literals;

namespace {

using Clock = std::chrono::steady_clock;

using outbox::test::GatedDeliveries;

// Records every hand-over, wave by wave; an event's report is scripted by its id.
class RecordingPublisher final : public outbox::Publisher {
 public:
  std::unique_ptr<outbox::InFlightDeliveries> send_each(const std::vector<const OutboxEvent*>& each,
                                                        Clock::time_point,
                                                        const std::function<void()>&) override {
    std::lock_guard lock(mutex);
    if (throw_on_wave == static_cast<int>(waves.size())) {
      waves.emplace_back();
      throw std::runtime_error("scripted send() failure");
    }
    std::vector<std::string> wave;
    std::vector<DeliveryOutcome> outcomes;
    for (const OutboxEvent* event : each) {
      wave.push_back(event->event_id);
      DeliveryOutcome outcome;
      outcome.status = DeliveryStatus::kDelivered;
      if (const auto error = fails.find(event->event_id); error != fails.end()) {
        outcome.status = DeliveryStatus::kNotDelivered;
        outcome.error_code = error->second;
        outcome.error = rd_kafka_err2name(error->second);
      }
      outcomes.push_back(outcome);
    }
    waves.push_back(wave);
    return std::make_unique<GatedDeliveries>(std::move(outcomes), gate);
  }
  std::chrono::microseconds delivery_timeout() const override { return 1s; }
  bool ready() override { return true; }
  void abandon_in_flight() override {}

  std::vector<std::vector<std::string>> sent() {
    std::lock_guard lock(mutex);
    return waves;
  }

  std::mutex mutex;
  std::vector<std::vector<std::string>> waves;
  std::map<std::string, rd_kafka_resp_err_t> fails;
  int throw_on_wave = -1;
  std::shared_ptr<std::atomic<bool>> gate = std::make_shared<std::atomic<bool>>(true);
};

OutboxEvent event(const std::string& id) {
  OutboxEvent e;
  e.event_id = id;
  e.aggregate_id = id.substr(0, 1);
  return e;
}

// a1 -> a2 -> a3 and b1 alone: a1 and b1 are heads.
const std::vector<OutboxEvent> kEvents{event("a1"), event("b1"), event("a2"), event("a3")};
const std::vector<size_t> kAfter{0, 1, 0, 2};

using Waves = std::vector<std::vector<std::string>>;

}  // namespace

TEST_CASE("a chained version is handed over only after the one before it was acknowledged",
          "[chained]") {
  RecordingPublisher publisher;
  publisher.gate->store(false);  // no report yet
  ChainedDeliveries deliveries(publisher, kEvents, kAfter, Clock::now() + 10s, {});
  // The heads go at once; a2 waits for a1's report however long it takes.
  CHECK(publisher.sent() == Waves{{"a1", "b1"}});
  CHECK_FALSE(deliveries.wait_until(Clock::now() + 50ms));
  CHECK(publisher.sent() == Waves{{"a1", "b1"}});
  publisher.gate->store(true);
  REQUIRE(deliveries.wait_until(Clock::now() + 10s));
  CHECK(publisher.sent() == Waves{{"a1", "b1"}, {"a2"}, {"a3"}});
  CHECK(deliveries.waves_sent() == 3);
  for (const DeliveryOutcome& outcome : deliveries.outcomes())
    CHECK(outcome.status == DeliveryStatus::kDelivered);
}

TEST_CASE(
    "nothing behind a version that was not acknowledged is sent, and it goes back unattempted",
    "[chained]") {
  RecordingPublisher publisher;
  publisher.fails["a1"] = RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS;
  ChainedDeliveries deliveries(publisher, kEvents, kAfter, Clock::now() + 10s, {});
  REQUIRE(deliveries.wait_until(Clock::now() + 10s));
  // a2 and a3 never reached the producer: nothing of a's could land out of order.
  CHECK(publisher.sent() == Waves{{"a1", "b1"}});
  const std::vector<DeliveryOutcome>& outcomes = deliveries.outcomes();
  CHECK(outcomes[0].error_code == RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS);  // a1's own report
  CHECK(outcomes[1].status == DeliveryStatus::kDelivered);                 // b1 unaffected
  for (size_t i : {2, 3}) {
    INFO(outcomes[i].error);
    CHECK(outcomes[i].status == DeliveryStatus::kNotDelivered);
    CHECK(outcomes[i].error.find("not sent: event a1 before it was not acknowledged "
                                 "(NOT_ENOUGH_REPLICAS)") != std::string::npos);
    // Released without an attempt: not the event's fault.
    CHECK(outbox::classify_failure(outcomes[i].error_code) == outbox::FailureKind::kNotAttempted);
  }
}

TEST_CASE("a chained version whose turn comes after the enqueue deadline is not sent",
          "[chained]") {
  RecordingPublisher publisher;
  publisher.gate->store(false);
  const auto enqueue_by = Clock::now() + 20ms;
  ChainedDeliveries deliveries(publisher, kEvents, kAfter, enqueue_by, {});
  // a1's report comes after the deadline: a2 handed over now could be reported after the lease.
  while (Clock::now() < enqueue_by)
    std::this_thread::sleep_for(1ms);
  publisher.gate->store(true);
  REQUIRE(deliveries.wait_until(Clock::now() + 10s));
  CHECK(publisher.sent() == Waves{{"a1", "b1"}});
  CHECK(deliveries.outcomes()[0].status == DeliveryStatus::kDelivered);
  for (size_t i : {2, 3}) {
    INFO(deliveries.outcomes()[i].error);
    CHECK(deliveries.outcomes()[i].status == DeliveryStatus::kNotDelivered);
    CHECK(deliveries.outcomes()[i].error.find("enqueue deadline passed before event a1") !=
          std::string::npos);
  }
}

TEST_CASE("a chained wave whose send() throws is maybe delivered and ends its chains",
          "[chained]") {
  RecordingPublisher publisher;
  publisher.throw_on_wave = 1;  // the wave of a2
  ChainedDeliveries deliveries(publisher, kEvents, kAfter, Clock::now() + 10s, {});
  REQUIRE(deliveries.wait_until(Clock::now() + 10s));
  const std::vector<DeliveryOutcome>& outcomes = deliveries.outcomes();
  CHECK(outcomes[0].status == DeliveryStatus::kDelivered);
  CHECK(outcomes[2].status == DeliveryStatus::kMaybeDelivered);  // never marked
  CHECK(outcomes[3].status == DeliveryStatus::kNotDelivered);    // a3 not sent behind it
  CHECK(publisher.sent().size() == 2);
}
