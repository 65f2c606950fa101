#pragma once

#include <optional>
#include <string_view>

namespace outbox {

// ER_DUP_ENTRY (SQLSTATE 23000): a unique key refused the row. SQLSTATE 23000 alone also
// covers foreign keys, NOT NULL and other integrity errors, so it never decides anything.
inline constexpr int kErrorDuplicateEntry = 1062;

// The key a duplicate-entry error names, exactly as the server printed it: the last quoted
// token of the message. MySQL 8.0.19+ writes
//   Duplicate entry 'notification-planner-e1' for key 'consumed_event.uq_consumed_event_identity'
// MariaDB and MySQL 5.7 write
//   Duplicate entry 'notification-planner-e1' for key 'uq_consumed_event_identity'
// Only the trailing token is read, never the duplicate value before it (a value may contain
// any text, a key name included), and not the words around it (servers with lc_messages set
// print them translated). nullopt unless the code is 1062 and the message ends in a quoted name.
std::optional<std::string_view> duplicate_entry_key(int error_code, std::string_view message);

// True only when the error is 1062 and the key it names is `key` of `table`, in either
// spelling above ("table.key" or "key"). Anything else (another key of the same table, the
// same key name on another table, a foreign-key or NOT NULL error, a truncation, a lost
// connection) is false.
bool is_duplicate_entry_on(int error_code, std::string_view message, std::string_view table,
                           std::string_view key);

}  // namespace outbox
