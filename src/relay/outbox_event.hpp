#pragma once

#include <cstdint>
#include <string>

namespace outbox {

// One claimed row of outbox_event: what the relay needs to publish it.
struct OutboxEvent {
  std::string event_id;
  std::string aggregate_type;
  std::string aggregate_id;
  std::string event_type;
  int64_t event_version = 0;
  std::string payload;
  // LENGTH(payload): what the claim counted against the byte budget (payload_bytes column).
  uint64_t payload_bytes = 0;
  // Failed publish attempts so far.
  int attempts = 0;
  // Age of the row at claim time, by the database clock (created -> claimed).
  int64_t age_at_claim_us = 0;
};

}  // namespace outbox
