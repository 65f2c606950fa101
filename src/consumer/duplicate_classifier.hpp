#pragma once

#include <string_view>

namespace outbox::consumer {

// The constraint that gives each consumer one effect per event:
//   CONSTRAINT uq_consumed_event_identity UNIQUE (consumer_name, event_id)
inline constexpr std::string_view kConsumedEventTable = "consumed_event";
inline constexpr std::string_view kConsumedEventIdentity = "uq_consumed_event_identity";

// Whether an error of `INSERT INTO consumed_event` means "this consumer already took effect for
// this event": only error 1062 whose key is uq_consumed_event_identity, spelt
// 'consumed_event.uq_consumed_event_identity' (MySQL 8.0.19+) or 'uq_consumed_event_identity'
// (MariaDB, MySQL 5.7). Every other error is a failure that must not be acknowledged: another
// unique key, a foreign key (1451/1452), any other SQLSTATE 23000 error, truncation
// (1406/1265), a lost connection (2013), and 1062 texts that only mention the name elsewhere.
bool is_already_consumed(int error_code, std::string_view message);

}  // namespace outbox::consumer
