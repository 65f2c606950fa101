#include "operator/operator_pauses.hpp"

namespace outbox {

const char* kind_word(OperatorPause::Kind kind) {
  return kind == OperatorPause::Kind::kTopic ? "topic" : "aggregate_type";
}

std::optional<OperatorPause::Kind> parse_kind(const std::string& word) {
  if (word == "topic") return OperatorPause::Kind::kTopic;
  if (word == "aggregate_type") return OperatorPause::Kind::kAggregateType;
  return std::nullopt;
}

std::string held_prefix(OperatorPause::Kind kind, const std::string& name) {
  return std::string(kOperatorHoldPrefix) + kind_word(kind) + " " + name + ": ";
}

std::string held_error(const OperatorPause& pause) {
  return held_prefix(pause.kind, pause.name) +
         (pause.reason.empty() ? std::string("no reason given") : pause.reason) + " (paused by " +
         pause.paused_by + " at " + pause.paused_at + " UTC)";
}

OperatorPauses::Change OperatorPauses::replace(std::vector<OperatorPause> now) {
  std::map<std::pair<OperatorPause::Kind, std::string>, OperatorPause> fresh;
  for (OperatorPause& pause : now) {
    auto key = std::make_pair(pause.kind, pause.name);
    fresh.emplace(std::move(key), std::move(pause));
  }
  Change change;
  std::lock_guard lock(mutex_);
  for (const auto& [key, pause] : fresh) {
    if (!active_.contains(key)) change.began.push_back(pause);
    seen_[{kind_word(key.first), key.second}] = 1;
  }
  for (const auto& [key, pause] : active_) {
    if (fresh.contains(key)) continue;
    change.ended.push_back(pause);
    seen_[{kind_word(key.first), key.second}] = 0;
  }
  active_ = std::move(fresh);
  any_.store(!active_.empty(), std::memory_order_relaxed);
  return change;
}

std::optional<std::string> OperatorPauses::holding(const std::string& topic,
                                                   const std::string& aggregate_type) const {
  std::lock_guard lock(mutex_);
  // The topic first: the pause an operator most often names.
  auto found = active_.find({OperatorPause::Kind::kTopic, topic});
  if (found == active_.end())
    found = active_.find({OperatorPause::Kind::kAggregateType, aggregate_type});
  if (found == active_.end()) return std::nullopt;
  return held_error(found->second);
}

std::map<std::pair<std::string, std::string>, int> OperatorPauses::gauge() const {
  std::lock_guard lock(mutex_);
  return seen_;
}

}  // namespace outbox
