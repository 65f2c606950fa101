#pragma once

#include <functional>
#include <string>

#include "mysql/mysql_session.hpp"
#include "received_event.hpp"

namespace outbox::consumer {

// A handler's verdict on one event. A failure that may pass (a lock wait, a lost connection,
// a constraint the handler did not expect) is not a verdict: the handler throws, the
// transaction is rolled back and the message is retried, never acknowledged.
class [[nodiscard]] EffectResult {
 public:
  // The local effect is written (or the event needs none); commit it with the dedupe row.
  static EffectResult applied() { return {true, ""}; }
  // This event can never take effect here (a payload this consumer cannot read): nothing of it
  // is committed, it goes to the dead-letter topic with `reason`, its offset is committed.
  static EffectResult rejected(std::string reason) { return {false, std::move(reason)}; }

  bool is_applied() const { return applied_; }
  const std::string& reason() const { return reason_; }

 private:
  EffectResult(bool applied, std::string reason) : applied_(applied), reason_(std::move(reason)) {}
  bool applied_;
  std::string reason_;
};

// The local effect of one event. It runs inside the consumer's transaction on `session`,
// after the consumed_event row was inserted and before COMMIT: it must neither commit nor roll
// back. sql::SQLException or any other std::exception means "failed, retry".
using EventHandler = std::function<EffectResult(MysqlSession& session, const ReceivedEvent& event)>;

}  // namespace outbox::consumer
