#pragma once

#include "command.hpp"

namespace outbox::ctl {

// outboxctl requeue <event_id> | --all-failed
int requeue(CommandContext& context);
// outboxctl skip <event_id>
int skip(CommandContext& context);

}  // namespace outbox::ctl
