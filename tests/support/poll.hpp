#pragma once

#include "harness/poll.hpp"

namespace outbox::test {
using harness::eventually;
using harness::eventually_while_progressing;
}  // namespace outbox::test
