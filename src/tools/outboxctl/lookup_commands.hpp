#pragma once

#include "command.hpp"

// The seed's query entry points: every state traceable by a stable id.
namespace outbox::ctl {

// outboxctl event <event_id> (event_command.cpp)
int event(CommandContext& context);
// outboxctl consumed <consumer> <event_id> (consumed_command.cpp)
int consumed(CommandContext& context);
// outboxctl order <tenant_id> <request_id> (order_command.cpp)
int order(CommandContext& context);

}  // namespace outbox::ctl
