#pragma once

#include "command.hpp"

namespace outbox::ctl {

// outboxctl purge [--dry-run] [--published-after D] [--consumed-after D] [--batch-size N]
int purge(CommandContext& context);

}  // namespace outbox::ctl
