#pragma once

#include "verify_options.hpp"

namespace outbox::verify {

// outbox-verify [windows]: sets the chain up, forces the seven windows, writes the report.
// Returns the exit code: 0 every injection and invariant PASS, 1 something FAILED, 69 the chain
// could not be set up.
int run_windows_command(const WindowsCommand& command);

}  // namespace outbox::verify
