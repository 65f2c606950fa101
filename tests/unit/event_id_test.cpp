// What may travel as an event id: what CHAR(36) CHARACTER SET ascii holds without truncation.
#include <catch2/catch.hpp>

#include "event_id.hpp"

using outbox::event_id_problem;

TEST_CASE("event ids are 1..36 printable ASCII characters", "[event-id]") {
  CHECK_FALSE(event_id_problem("6f1c2d3e-0000-4000-8000-000000000001"));
  CHECK_FALSE(event_id_problem("e"));
  CHECK(event_id_problem("") == "is empty");
  CHECK(event_id_problem(std::string(37, 'a')) == "is 37 bytes long (at most 36)");
  CHECK(event_id_problem("a b") ==
        "has byte 0x20 at position 2 (only printable ASCII without spaces is allowed)");
  CHECK(event_id_problem("id\n") ==
        "has byte 0x0a at position 3 (only printable ASCII without spaces is allowed)");
  CHECK(event_id_problem("caf\xc3\xa9") ==
        "has byte 0xc3 at position 4 (only printable ASCII without spaces is allowed)");
}
