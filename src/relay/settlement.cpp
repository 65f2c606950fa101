#include "settlement.hpp"

#include "failure_policy.hpp"

namespace outbox {

SettlementPlan classify_deliveries(const std::vector<DeliveryOutcome>& outcomes) {
  SettlementPlan plan;
  plan.delivered.reserve(outcomes.size());
  for (size_t i = 0; i < outcomes.size(); ++i) {
    const DeliveryOutcome& outcome = outcomes[i];
    if (outcome.status == DeliveryStatus::kDelivered) {
      plan.delivered.push_back(i);
      continue;
    }
    plan.unconfirmed.push_back(i);
    switch (classify_failure(outcome.error_code)) {
      case FailureDisposition::kNotAttempted:
        plan.released.push_back(i);
        break;
      case FailureDisposition::kPermanent:
        plan.failures[PublishFailure{true, outcome.error}].push_back(i);
        break;
      case FailureDisposition::kRetry:
        plan.failures[PublishFailure{false, outcome.error}].push_back(i);
        break;
    }
  }
  return plan;
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
