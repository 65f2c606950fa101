#pragma once

#include "command.hpp"

// outboxctl replay: publishes the PUBLISHED events of a window again (replay_command.cpp).
namespace outbox::ctl {

int replay(CommandContext& context);

}  // namespace outbox::ctl
