#include "settlement.hpp"

#include <set>
#include <utility>

namespace outbox {

SettlementPlan classify_deliveries(const std::vector<DeliveryOutcome>& outcomes) {
  // Where deliveries got through: a transient failure there is this event's alone.
  std::set<std::pair<std::string, int32_t>> delivered_partitions;
  std::set<std::string> delivered_topics;
  for (const DeliveryOutcome& outcome : outcomes) {
    if (outcome.status != DeliveryStatus::kDelivered) continue;
    delivered_partitions.emplace(outcome.topic, outcome.partition);
    delivered_topics.insert(outcome.topic);
  }
  const auto others_delivered = [&](const DeliveryOutcome& outcome) {
    // A message that never got a partition (-1: no metadata) is compared by topic.
    return outcome.partition < 0
               ? delivered_topics.count(outcome.topic) != 0
               : delivered_partitions.count({outcome.topic, outcome.partition}) != 0;
  };
  SettlementPlan plan;
  plan.delivered.reserve(outcomes.size());
  for (size_t i = 0; i < outcomes.size(); ++i) {
    const DeliveryOutcome& outcome = outcomes[i];
    if (outcome.status == DeliveryStatus::kDelivered) {
      plan.delivered.push_back(i);
      continue;
    }
    plan.unconfirmed.push_back(i);
    switch (outcome.failure()) {
      case FailureKind::kNotAttempted:
        plan.released.push_back(i);
        break;
      case FailureKind::kPermanent:
        plan.failures[PublishFailure{true, outcome.error}].push_back(i);
        break;
      case FailureKind::kUnknownTopic:
        plan.unknown_topic.push_back(i);
        break;
      case FailureKind::kTransient:
        if (others_delivered(outcome)) {
          plan.failures[PublishFailure{false, outcome.error}].push_back(i);
        } else {
          plan.outage.push_back(i);
        }
        break;
    }
  }
  return plan;
}

std::string describe_outage(const SettlementPlan& plan,
                            const std::vector<DeliveryOutcome>& outcomes) {
  if (plan.outage.empty() && plan.held.empty()) return "";
  const DeliveryOutcome& first =
      outcomes[plan.outage.empty() ? plan.held.begin()->second.front() : plan.outage.front()];
  std::string where = first.topic;
  if (first.partition >= 0) {
    // Appended piece by piece: GCC 12 at -O3 reports a false -Wrestrict on
    // `"[" + std::to_string(...)` (GCC bug 105329).
    where += '[';
    where += std::to_string(first.partition);
    where += ']';
  }
  return first.error + " on " + where;
}

std::vector<std::string> ids_at(const std::vector<OutboxEvent>& events,
                                const std::vector<size_t>& indices) {
  std::vector<std::string> ids;
  ids.reserve(indices.size());
  for (size_t i : indices)
    ids.push_back(events[i].event_id);
  return ids;
}

}  // namespace outbox
