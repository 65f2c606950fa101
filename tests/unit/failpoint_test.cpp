// Failpoints: off unless guarded, parsed strictly, firing on the requested hit.
#include <catch2/catch.hpp>

#include "failpoint.hpp"

namespace failpoints = outbox::failpoints;

TEST_CASE("failpoints refuse to arm without the guard", "[failpoint]") {
  const outbox::Status status = failpoints::configure("relay.x=error", false);
  REQUIRE_FALSE(status.ok());
  CHECK(status.error().message ==
        "OUTBOX_FAILPOINTS is set but OUTBOX_FAILPOINTS_I_UNDERSTAND is not "
        "\"this-process-will-fail-on-purpose\": failpoints make this process fail on purpose and "
        "are for fault-injection tests only; unset OUTBOX_FAILPOINTS");
  CHECK_FALSE(failpoints::hit("relay.x"));
  CHECK(failpoints::armed().empty());
}

TEST_CASE("an armed error failpoint fires on the requested hit only", "[failpoint]") {
  REQUIRE(failpoints::configure("a=error@2,b=error,c=sleep:1", true));
  CHECK(failpoints::armed() == std::vector<std::string>{"a=error@2", "b=error", "c=sleep:1"});
  CHECK_FALSE(failpoints::hit("a"));
  CHECK(failpoints::hit("a"));
  CHECK_FALSE(failpoints::hit("a"));
  CHECK(failpoints::hit("b"));
  CHECK(failpoints::hit("b"));
  CHECK_FALSE(failpoints::hit("c"));
  CHECK_FALSE(failpoints::hit("unknown"));
  REQUIRE(failpoints::configure("", true));
  CHECK_FALSE(failpoints::hit("b"));
}

TEST_CASE("malformed failpoint specs are rejected", "[failpoint]") {
  CHECK(failpoints::configure("novalue", true).error().message ==
        "OUTBOX_FAILPOINTS: \"novalue\" is not name=action");
  CHECK(failpoints::configure("a=explode", true).error().message ==
        "OUTBOX_FAILPOINTS: unknown action in \"a=explode\" (kill, error, sleep:MS)");
  CHECK(failpoints::configure("a=error@0", true).error().message ==
        "OUTBOX_FAILPOINTS: bad hit number in \"a=error@0\"");
  REQUIRE(failpoints::configure("", true));
}
