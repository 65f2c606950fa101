#include "submit_result.hpp"

namespace outbox::writer {
namespace {

std::string ids(const AcceptedOrder& order) {
  return "order " + std::to_string(order.order_id) + " (event " + order.acceptance_event_id + ")";
}

struct Describer {
  std::string operator()(const Committed& committed) const {
    return "committed " + ids(committed.order);
  }
  std::string operator()(const AlreadyAccepted& accepted) const {
    return "already accepted as " + ids(accepted.stored);
  }
  std::string operator()(const RolledBack& rolled_back) const {
    return "rolled back: " + rolled_back.error;
  }
  std::string operator()(const CommitOutcomeUnknown& unknown) const {
    return "commit outcome unknown (reconcile, do not replay): " + unknown.error;
  }
};

}  // namespace

std::string describe(const SubmitResult& result) {
  return std::visit(Describer{}, result);
}

}  // namespace outbox::writer
