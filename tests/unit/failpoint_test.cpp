// Failpoints: off unless guarded, parsed strictly, firing on the requested hit.
#include <catch2/catch.hpp>

#include "failpoint.hpp"

namespace failpoints = outbox::failpoints;

TEST_CASE("failpoints refuse to arm without the guard", "[failpoint]") {
  const outbox::Status status = failpoints::configure("writer.before_commit=error", false);
  REQUIRE_FALSE(status.ok());
  CHECK(status.error().message ==
        "OUTBOX_FAILPOINTS is set but OUTBOX_FAILPOINTS_I_UNDERSTAND is not "
        "\"this-process-will-fail-on-purpose\": failpoints make this process fail on purpose and "
        "are for fault-injection tests only; unset OUTBOX_FAILPOINTS");
  CHECK_FALSE(failpoints::hit(failpoints::kWriterBeforeCommit));
  CHECK(failpoints::armed().empty());
}

TEST_CASE("an armed error failpoint fires on the requested hit only", "[failpoint]") {
  const std::string_view a = failpoints::kWriterBeforeCommit;
  const std::string_view b = failpoints::kRelayAfterPublishBeforeMark;
  const std::string_view c = failpoints::kConsumerBeforeCommit;
  REQUIRE(
      failpoints::configure("writer.before_commit=error@2,relay.after_publish_before_mark="
                            "error,consumer.before_commit=sleep:1",
                            true));
  CHECK(failpoints::armed() == std::vector<std::string>{"consumer.before_commit=sleep:1",
                                                        "relay.after_publish_before_mark=error",
                                                        "writer.before_commit=error@2"});
  CHECK_FALSE(failpoints::hit(a));
  CHECK(failpoints::hit(a));
  CHECK_FALSE(failpoints::hit(a));
  CHECK(failpoints::hit(b));
  CHECK(failpoints::hit(b));
  CHECK_FALSE(failpoints::hit(c));
  CHECK_FALSE(failpoints::hit(failpoints::kConsumerAfterCommitBeforeAck));
  REQUIRE(failpoints::configure("", true));
  CHECK_FALSE(failpoints::hit(b));
}

TEST_CASE("a failpoint name that is not compiled in is refused, not silently ignored",
          "[failpoint]") {
  CHECK(failpoints::configure("relay.after_publish_before_mrak=kill", true).error().message ==
        "OUTBOX_FAILPOINTS: unknown failpoint \"relay.after_publish_before_mrak\" (known: "
        "writer.before_commit, relay.after_publish_before_mark, consumer.before_commit, "
        "consumer.after_commit_before_ack)");
  CHECK(failpoints::armed().empty());
  CHECK_FALSE(failpoints::hit(failpoints::kRelayAfterPublishBeforeMark));
}

TEST_CASE("malformed failpoint specs are rejected", "[failpoint]") {
  CHECK(failpoints::configure("novalue", true).error().message ==
        "OUTBOX_FAILPOINTS: \"novalue\" is not name=action");
  CHECK(failpoints::configure("writer.before_commit=explode", true).error().message ==
        "OUTBOX_FAILPOINTS: unknown action in \"writer.before_commit=explode\" (kill, error, "
        "sleep:MS)");
  CHECK(failpoints::configure("writer.before_commit=error@0", true).error().message ==
        "OUTBOX_FAILPOINTS: bad hit number in \"writer.before_commit=error@0\"");
  REQUIRE(failpoints::configure("", true));
}
