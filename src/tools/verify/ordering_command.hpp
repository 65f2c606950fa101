#pragma once

#include "verify_options.hpp"

namespace outbox::verify {

// outbox-verify ordering: an aggregate's versions written as a backlog and live, published by
// several relays while relays are killed -9 and the broker fails (the mock's produce errors,
// or a real node killed -9), then read back with kcat: every version published, and for every
// aggregate the first occurrence of each version in version order. Writes the
// orderingVerification report; returns the exit code (0 PASS, 1 FAIL, 69 not set up).
int run_ordering_command(const OrderingCommand& command);

}  // namespace outbox::verify
