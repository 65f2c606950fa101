#pragma once

// The answer-losing proxy lives in the shared harness (src/tools/harness): outbox-verify uses
// it to force window 2 (the commit succeeds, the client sees an error).
#include "harness/tcp_proxy.hpp"

namespace outbox::test {
using harness::TcpProxy;
}  // namespace outbox::test
