// The consumer's duplicate classifier: "already consumed" only for error 1062 naming
// uq_consumed_event_identity, in MySQL 8's and MariaDB's spellings. Every near miss is a
// failure (not acknowledged, retried). The case table in docs/libraries.md is this table.
#include <catch2/catch.hpp>

#include "duplicate_classifier.hpp"

using outbox::consumer::is_already_consumed;

namespace {

struct Case {
  const char* what;
  int code;
  const char* sqlstate;  // documentation: the classifier never reads it
  const char* message;
  bool already_consumed;
};

// clang-format off
const Case kCases[] = {
    {"MariaDB / MySQL 5.7 spelling", 1062, "23000",
     "Duplicate entry 'notification-planner-6f1c2d3e-0000-4000-8000-000000000001' for key "
     "'uq_consumed_event_identity'", true},
    {"MySQL 8.0.19+ spelling (table.key)", 1062, "23000",
     "Duplicate entry 'notification-planner-6f1c2d3e-0000-4000-8000-000000000001' for key "
     "'consumed_event.uq_consumed_event_identity'", true},
    {"another unique key of consumed_event (PRIMARY, MariaDB)", 1062, "23000",
     "Duplicate entry '42' for key 'PRIMARY'", false},
    {"another unique key of consumed_event (PRIMARY, MySQL 8)", 1062, "23000",
     "Duplicate entry '42' for key 'consumed_event.PRIMARY'", false},
    {"another unique key of the effect table (notification_job)", 1062, "23000",
     "Duplicate entry '6f1c2d3e-0000-4000-8000-000000000001' for key "
     "'notification_job.PRIMARY'", false},
    {"the same key name on another table", 1062, "23000",
     "Duplicate entry 'x-1' for key 'consumed_event_archive.uq_consumed_event_identity'", false},
    {"a longer key name that starts with it", 1062, "23000",
     "Duplicate entry 'x-1' for key 'uq_consumed_event_identity_v2'", false},
    {"the name only inside the duplicate value", 1062, "23000",
     "Duplicate entry 'uq_consumed_event_identity' for key 'PRIMARY'", false},
    {"foreign key, child row (1452) naming the constraint", 1452, "23000",
     "Cannot add or update a child row: a foreign key constraint fails (`app`.`consumed_event`, "
     "CONSTRAINT `uq_consumed_event_identity` FOREIGN KEY (`event_id`) REFERENCES "
     "`outbox_event` (`event_id`))", false},
    {"foreign key, parent row (1451)", 1451, "23000",
     "Cannot delete or update a parent row: a foreign key constraint fails (`app`.`x`, "
     "CONSTRAINT `fk` FOREIGN KEY (`event_id`) REFERENCES `consumed_event` (`event_id`))", false},
    {"23000 without 1062: NOT NULL (1048)", 1048, "23000", "Column 'event_id' cannot be null",
     false},
    {"23000 without 1062: duplicate key on write (1022)", 1022, "23000",
     "Can't write; duplicate key in table 'consumed_event'", false},
    {"1062's other form (1586) is not 1062", 1586, "23000",
     "Duplicate entry 'x' for key 'uq_consumed_event_identity'", false},
    {"truncation: data too long (1406)", 1406, "22001",
     "Data too long for column 'consumer_name' at row 1", false},
    {"truncation: data truncated (1265)", 1265, "01000",
     "Data truncated for column 'event_id' at row 1", false},
    {"connection lost (2013)", 2013, "HY000", "Lost connection to server during query", false},
    {"connection lost without a code (0)", 0, "", "", false},
    {"1062 with a message that names no key", 1062, "23000", "Duplicate entry", false},
};
// clang-format on

}  // namespace

TEST_CASE("only 1062 naming uq_consumed_event_identity is already consumed", "[classifier]") {
  for (const Case& c : kCases) {
    INFO(c.what << ": " << c.code << " (" << c.sqlstate << ") " << c.message);
    CHECK(is_already_consumed(c.code, c.message) == c.already_consumed);
  }
}
