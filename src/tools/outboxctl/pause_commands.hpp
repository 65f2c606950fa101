#pragma once

#include "command.hpp"

// outboxctl pause / resume / paused: an operator's hold on a topic or an aggregate type
// (sql/014_outbox_pause.sql, src/relay/operator/operator_pauses.hpp), obeyed by every relay.
namespace outbox::ctl {

int pause(CommandContext& context);
int resume(CommandContext& context);
int paused(CommandContext& context);

// The pauses in force, each with the events held for it, and the held events of pauses that
// ended; for `paused` and `backlog`. Null when the table is missing (sql/014 not applied).
Value operator_pauses_answer(CommandContext& context);

}  // namespace outbox::ctl
