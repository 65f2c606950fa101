// Which messages carry a usable event id; the error texts are the dead letters' reasons.
#include <catch2/catch.hpp>

#include "event_id_header.hpp"

using outbox::consumer::event_id_from_headers;
using Headers = std::vector<std::pair<std::string, std::string>>;

TEST_CASE("exactly one valid event_id header identifies the event", "[event-id-header]") {
  const auto id = event_id_from_headers(
      {{"event_type", "ORDER_ACCEPTED"}, {"event_id", "6f1c2d3e-0000-4000-8000-000000000001"}});
  REQUIRE(id);
  CHECK(id.value() == "6f1c2d3e-0000-4000-8000-000000000001");
}

TEST_CASE("missing, repeated or malformed event_id headers are refused with a reason",
          "[event-id-header]") {
  CHECK(event_id_from_headers(Headers{}).error().message == "no event_id header (nor ce_id)");
  CHECK(event_id_from_headers({{"Event_Id", "e1"}}).error().message ==
        "no event_id header (nor ce_id)");
  CHECK(event_id_from_headers({{"event_id", "e1"}, {"event_id", "e2"}}).error().message ==
        "2 event_id headers");
  CHECK(event_id_from_headers({{"event_id", ""}}).error().message == "event_id header is empty");
  CHECK(event_id_from_headers({{"event_id", std::string(40, 'x')}}).error().message ==
        "event_id header is 40 bytes long (at most 36)");
  CHECK(event_id_from_headers({{"event_id", "two words"}}).error().message ==
        "event_id header has byte 0x20 at position 4 (only printable ASCII without spaces is "
        "allowed)");
}

TEST_CASE("a CloudEvents message is identified by its ce_id header", "[event-id-header]") {
  const auto id = event_id_from_headers(
      {{"ce_specversion", "1.0"}, {"ce_id", "6f1c2d3e-0000-4000-8000-000000000001"}});
  REQUIRE(id);
  CHECK(id.value() == "6f1c2d3e-0000-4000-8000-000000000001");
  // Both headers with one value (a kafka.headers event_id beside the profile's ce_id) are one id.
  CHECK(event_id_from_headers({{"event_id", "e1"}, {"ce_id", "e1"}}).value() == "e1");
  CHECK(event_id_from_headers({{"event_id", "e1"}, {"ce_id", "e2"}}).error().message ==
        "event_id and ce_id headers name different events");
  CHECK(event_id_from_headers({{"ce_id", "e1"}, {"ce_id", "e2"}}).error().message ==
        "2 ce_id headers");
  CHECK(event_id_from_headers({{"ce_id", ""}}).error().message == "ce_id header is empty");
}
