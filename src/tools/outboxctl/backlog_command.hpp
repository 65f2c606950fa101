#pragma once

#include "command.hpp"

namespace outbox::ctl {

// outboxctl backlog
int backlog(CommandContext& context);

}  // namespace outbox::ctl
