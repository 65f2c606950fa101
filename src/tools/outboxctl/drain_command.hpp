#pragma once

#include "command.hpp"

namespace outbox::ctl {

// outboxctl drain [--wait [--timeout 5m]]
int drain(CommandContext& context);

}  // namespace outbox::ctl
