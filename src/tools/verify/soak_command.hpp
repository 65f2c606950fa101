#pragma once

#include "verify_options.hpp"

namespace outbox::verify {

// outbox-verify soak: see soak_run.hpp. Returns the exit code.
int run_soak_command(const SoakCommand& command);

// Stops the MariaDB server a soak started (for an interrupted run); safe from any thread.
void stop_soak_servers();

}  // namespace outbox::verify
