// outboxctl's answers: one tree printed as aligned text for people and as one JSON document for
// scripts. The layouts are exact: operators and scripts read them.
#include <catch2/catch.hpp>

#include "answer_value.hpp"

using outbox::ctl::Value;

TEST_CASE("an answer prints as aligned text and as one line of JSON", "[outboxctl]") {
  Value answer =
      Value::object()
          .set("event_id", "e-1")
          .set("attempts", 3)
          .set("last_error", Value())
          .set("age_seconds", Value::seconds(1.5))
          .set("drained", true)
          .set("order", Value::object().set("id", int64_t{42}).set("status", "NEW"))
          .set("consumed_by",
               Value::list().add(Value::object().set("consumer", "planner").set("id", 7)))
          .set("holders", Value::list());
  CHECK(answer.text_lines() ==
        "event_id:    e-1\n"
        "attempts:    3\n"
        "last_error:  -\n"
        "age_seconds: 1.500\n"
        "drained:     true\n"
        "order:\n"
        "  id:     42\n"
        "  status: NEW\n"
        "consumed_by:\n"
        "  - consumer: planner\n"
        "    id:       7\n"
        "holders:     (none)\n");
  CHECK(answer.json() ==
        "{\"event_id\":\"e-1\",\"attempts\":3,\"last_error\":null,\"age_seconds\":1.500,"
        "\"drained\":true,\"order\":{\"id\":42,\"status\":\"NEW\"},\"consumed_by\":[{\"consumer\":"
        "\"planner\",\"id\":7}],\"holders\":[]}");
}

TEST_CASE("text from the database cannot break either layout", "[outboxctl]") {
  const Value answer = Value::object().set("last_error", "line 1\nline \"2\"\t\\").set("empty", "");
  CHECK(answer.text_lines() ==
        "last_error: line 1\\nline \"2\"\\u0009\\\n"
        "empty:      \"\"\n");
  CHECK(answer.json() == "{\"last_error\":\"line 1\\nline \\\"2\\\"\\u0009\\\\\",\"empty\":\"\"}");
}

TEST_CASE("fields are found by name and absent ones read as null", "[outboxctl]") {
  const Value answer = Value::object().set("status", "FAILED");
  CHECK(answer.at("status").text() == "FAILED");
  CHECK(answer.at("missing").is_null());
}
