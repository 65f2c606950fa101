#pragma once

#include <atomic>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace outbox {

// An operator's pause (outboxctl pause, sql/014_outbox_pause.sql): the events of a topic, or
// of an aggregate type, are held back by every relay until it is resumed, while the rest flow.
struct OperatorPause {
  enum class Kind { kTopic, kAggregateType };
  Kind kind = Kind::kTopic;
  std::string name;
  std::string reason;
  std::string paused_by;
  std::string paused_at;  // UTC, as the database wrote it

  friend bool operator==(const OperatorPause&, const OperatorPause&) = default;
};

// "topic" / "aggregate_type": the kind column's words, and outboxctl's.
const char* kind_word(OperatorPause::Kind kind);
std::optional<OperatorPause::Kind> parse_kind(const std::string& word);

// The last_error prefix of every row held for an operator's pause; the kind and name follow
// it ("paused by operator: topic outbox.BILLING: <reason> (paused by ... at ...)"), so that
// outboxctl and the wake statements find a pause's rows by prefix (operator_pause_sql.hpp).
inline constexpr const char* kOperatorHoldPrefix = "paused by operator: ";
// The prefix of the rows held for `kind` `name`, up to and including ": " after the name.
std::string held_prefix(OperatorPause::Kind kind, const std::string& name);
// The whole last_error of a row held for `pause`.
std::string held_error(const OperatorPause& pause);

// The pauses in force as this process last read them (PauseWatcher refreshes them once a
// second). Workers ask, for each event they claim, whether a pause holds it.
class OperatorPauses {
 public:
  struct Change {
    std::vector<OperatorPause> began;
    std::vector<OperatorPause> ended;
  };
  // Replaces the pauses with `now` (what the table holds); says which began and which ended.
  // A pause whose reason changed counts as neither.
  Change replace(std::vector<OperatorPause> now);

  // The last_error for an event of `aggregate_type` routed to `topic` when a pause holds it.
  std::optional<std::string> holding(const std::string& topic,
                                     const std::string& aggregate_type) const;
  // Cheap: whether any pause is in force (checked before each claimed event is routed).
  bool any() const { return any_.load(std::memory_order_relaxed); }

  // A worker could not make sure that rows it held for a pause that ended meanwhile were woken
  // (a hold or a wake failed): the watcher runs its wake of every held row whose pause ended at
  // its next poll (take_wake_request).
  void request_wake() { wake_requested_.store(true); }
  bool take_wake_request() { return wake_requested_.exchange(false); }

  // For the gauge: (kind, name) of every pause seen since start, 1 while in force, 0 after (the
  // series goes to 0 rather than vanishing). Operators make pauses: a small set.
  std::map<std::pair<std::string, std::string>, int> gauge() const;

 private:
  mutable std::mutex mutex_;
  std::map<std::pair<OperatorPause::Kind, std::string>, OperatorPause> active_;
  std::map<std::pair<std::string, std::string>, int> seen_;
  std::atomic<bool> any_{false};
  std::atomic<bool> wake_requested_{false};
};

}  // namespace outbox
