#pragma once

#include <cstdint>
#include <string>

namespace outbox::writer {

// One new row of outbox_event, as the seed's writers insert it (status PENDING, created_at by
// the database clock). The relay publishes it with key = aggregate_id, value = payload and
// the headers event_id, event_type, event_version, aggregate_type.
struct OutboxEventRecord {
  std::string event_id;  // stable, chosen before the transaction: 1..36 printable ASCII
  std::string aggregate_type;
  std::string aggregate_id;
  std::string event_type;
  int64_t event_version = 1;
  std::string payload;  // JSON
};

}  // namespace outbox::writer
