#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace outbox {

// One claimed row of outbox_event: what the relay needs to publish it.
struct OutboxEvent {
  std::string event_id;
  std::string aggregate_type;
  std::string aggregate_id;
  std::string event_type;
  int64_t event_version = 0;
  std::string payload;  // the column's bytes as stored (JSON text, or binary)
  // LENGTH(payload): what the claim counted against the byte budget (payload_bytes column).
  uint64_t payload_bytes = 0;
  // The message columns the claim read beyond these (lease_sql::Schema::message_columns():
  // kafka.key_column, header columns, traceparent / tracestate), in that order; nullopt for
  // NULL.
  std::vector<std::optional<std::string>> columns;
  // Failed publish attempts so far.
  int attempts = 0;
  // Age of the row at claim time, by the database clock (created -> claimed).
  int64_t age_at_claim_us = 0;

  // What the event holds in memory until it settles, counted against the byte budget: the
  // payload and every other column read with it (a key or header column can be as large as a
  // payload; counting only payloads let such columns grow the relay past relay.max_bytes).
  uint64_t budget_bytes() const {
    uint64_t bytes = payload_bytes + event_id.size() + aggregate_type.size() + aggregate_id.size() +
                     event_type.size();
    for (const std::optional<std::string>& column : columns)
      bytes += column ? column->size() : 0;
    return bytes;
  }
};

}  // namespace outbox
