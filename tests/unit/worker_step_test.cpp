// The worker's two pure decisions: which step follows a claim attempt (worker_step.hpp), and
// what a batch's delivery reports mean for its rows (settlement.hpp).
#include <librdkafka/rdkafka.h>

#include <catch2/catch.hpp>
#include <string>
#include <utility>

#include "settlement.hpp"
#include "worker_step.hpp"

using outbox::ClaimResult;
using outbox::DeliveryOutcome;
using outbox::DeliveryStatus;
using outbox::next_step;
using outbox::PublishFailure;
using outbox::Step;

namespace {

DeliveryOutcome delivered() {
  DeliveryOutcome outcome;
  outcome.status = DeliveryStatus::kDelivered;
  return outcome;
}

DeliveryOutcome failed(DeliveryStatus status, rd_kafka_resp_err_t code) {
  DeliveryOutcome outcome;
  outcome.status = status;
  outcome.error_code = code;
  outcome.error = rd_kafka_err2name(code);
  return outcome;
}

}  // namespace

TEST_CASE("a batch in flight is settled before the worker waits", "[worker-step]") {
  for (ClaimResult cannot :
       {ClaimResult::kDatabaseDown, ClaimResult::kBrokerDown, ClaimResult::kFailed}) {
    CHECK(next_step(cannot, true) == Step::kSettleOldest);
    CHECK(next_step(cannot, false) == Step::kBackOff);
  }
  // Held back by relay.max_events_per_second: settle meanwhile, or wait for the pace.
  CHECK(next_step(ClaimResult::kRateLimited, true) == Step::kSettleOldest);
  CHECK(next_step(ClaimResult::kRateLimited, false) == Step::kBackOff);
  CHECK(next_step(ClaimResult::kNothing, true) == Step::kSettleOldest);
  CHECK(next_step(ClaimResult::kNothing, false) == Step::kIdle);
  CHECK(next_step(ClaimResult::kPipelineFull, true) == Step::kSettleOldest);
}

TEST_CASE("a full batch claims again, a short one settles everything", "[worker-step]") {
  CHECK(next_step(ClaimResult::kFullBatch, true) == Step::kClaim);
  CHECK(next_step(ClaimResult::kShortBatch, true) == Step::kSettleAll);
  // Parked rows may hide claimable ones behind them: look again at once, unless a batch of
  // ours is in flight (its mark frees rows; claiming on would park the backlog behind it).
  CHECK(next_step(ClaimResult::kOnlyParked, false) == Step::kClaim);
  CHECK(next_step(ClaimResult::kOnlyParked, true) == Step::kSettleOldest);
}

TEST_CASE("rows that only wait behind events in flight settle the worker's own batch first",
          "[worker-step]") {
  // Its own oldest batch may hold the events they wait for; without one, another worker's
  // does, and the worker polls instead of spinning on the same rows.
  CHECK(next_step(ClaimResult::kOnlyWaiting, true) == Step::kSettleOldest);
  CHECK(next_step(ClaimResult::kOnlyWaiting, false) == Step::kIdle);
}

TEST_CASE("delivery reports are classified into mark, release and failures by reason",
          "[worker-step]") {
  const std::vector<DeliveryOutcome> outcomes{
      delivered(),
      failed(DeliveryStatus::kMaybeDelivered, RD_KAFKA_RESP_ERR__MSG_TIMED_OUT),
      failed(DeliveryStatus::kNotDelivered, RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE),
      delivered(),
      failed(DeliveryStatus::kMaybeDelivered, RD_KAFKA_RESP_ERR__PURGE_INFLIGHT),
      failed(DeliveryStatus::kMaybeDelivered, RD_KAFKA_RESP_ERR__MSG_TIMED_OUT),
  };
  const outbox::SettlementPlan plan = outbox::classify_deliveries(outcomes);
  CHECK(plan.delivered == std::vector<size_t>{0, 3});
  CHECK(plan.unconfirmed == std::vector<size_t>{1, 2, 4, 5});
  CHECK(plan.released == std::vector<size_t>{4});
  // One group per stored (permanent, error): both timeouts go in one statement.
  CHECK(plan.failures == std::map<PublishFailure, std::vector<size_t>>{
                             {PublishFailure{false, "_MSG_TIMED_OUT"}, {1, 5}},
                             {PublishFailure{true, "MSG_SIZE_TOO_LARGE"}, {2}}});
}

TEST_CASE("a batch the broker confirmed entirely has nothing else to do", "[worker-step]") {
  const outbox::SettlementPlan plan =
      outbox::classify_deliveries({delivered(), delivered(), delivered()});
  CHECK(plan.delivered == std::vector<size_t>{0, 1, 2});
  CHECK(plan.unconfirmed.empty());
  CHECK(plan.released.empty());
  CHECK(plan.failures.empty());
}

TEST_CASE("the cluster's trouble counts an attempt only where others of the partition got through",
          "[worker-step]") {
  // The topic moved in as a std::string: assigning the const char* made GCC 12 at -O3 report a
  // false -Wrestrict in std::string's replace (GCC bug 105329).
  const auto at = [](DeliveryOutcome outcome, std::string topic, int32_t partition) {
    outcome.topic = std::move(topic);
    outcome.partition = partition;
    return outcome;
  };
  const auto timed_out = failed(DeliveryStatus::kMaybeDelivered, RD_KAFKA_RESP_ERR__MSG_TIMED_OUT);
  const auto no_replicas =
      failed(DeliveryStatus::kNotDelivered, RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS);
  const std::vector<DeliveryOutcome> outcomes{
      at(delivered(), "t", 0),
      at(timed_out, "t", 0),    // alone in failing on partition 0: its own attempt
      at(no_replicas, "t", 1),  // partition 1 got nothing through: an outage
      at(no_replicas, "t", 1),
      at(timed_out, "u", -1),  // no partition, and nothing of topic u delivered
      at(timed_out, "t", -1),  // no partition, but topic t delivered
      at(failed(DeliveryStatus::kNotDelivered, RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART), "x", 0),
  };
  const outbox::SettlementPlan plan = outbox::classify_deliveries(outcomes);
  CHECK(plan.delivered == std::vector<size_t>{0});
  CHECK(plan.outage == std::vector<size_t>{2, 3, 4});
  CHECK(plan.unknown_topic == std::vector<size_t>{6});
  CHECK(plan.released.empty());
  CHECK(plan.failures == std::map<PublishFailure, std::vector<size_t>>{
                             {PublishFailure{false, "_MSG_TIMED_OUT"}, {1, 5}}});
}

TEST_CASE("an outage that hits a whole batch counts nothing", "[worker-step]") {
  const auto no_replicas =
      failed(DeliveryStatus::kNotDelivered, RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS);
  const outbox::SettlementPlan plan =
      outbox::classify_deliveries({no_replicas, no_replicas, no_replicas});
  CHECK(plan.outage == std::vector<size_t>{0, 1, 2});
  CHECK(plan.failures.empty());
}
