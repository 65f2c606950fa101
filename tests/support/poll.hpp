#pragma once

#include "harness/poll.hpp"

namespace outbox::test {
using harness::eventually;
}  // namespace outbox::test
