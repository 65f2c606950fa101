#pragma once

// Child processes live in the shared harness (src/tools/harness), which outbox-verify uses too.
#include "harness/child_process.hpp"

namespace outbox::test {
using harness::ChildProcess;
using harness::CommandResult;
using harness::run_command;
}  // namespace outbox::test
