#pragma once

#include <string>

#include "harness/kafka_tools.hpp"

namespace outbox::test {

// Message-shape scenarios run the same way against librdkafka's mock cluster (tests/integration)
// and the real Kafka cluster (tests/kafka). Each reads what arrived with kcat, byte for byte
// (read_topic_exact), and prints one record as a "[kcat] ..." line.

// kafka.profile: debezium: 3 events (aggregate_type order) arrive on outbox.event.order (created
// by the caller) as Debezium's Outbox Event Router sends them with its defaults: key =
// aggregate_id, exactly one header `id` = event_id, value = the payload.
void run_debezium_profile(const std::string& bootstrap);

// A payload column altered to `column_type` (LONGBLOB, VARBINARY(n)): payloads with NUL bytes,
// invalid UTF-8, kcat's and our own separators, and an empty one, inserted by the mariadb CLI
// from hex, arrive on outbox.order (created by the caller) byte for byte.
void run_binary_payloads(const std::string& bootstrap, const std::string& column_type);

// One record as a line for logs and reports: topic/partition@offset, key, headers and value,
// non-printable bytes as \xNN, a null key or value as (null).
std::string describe_record(const std::string& topic, const harness::ExactRecord& record);

// "\x00\xff" -> "00ff": bytes as a hex literal for SQL (X'...') or comparisons.
std::string to_hex(const std::string& bytes);

}  // namespace outbox::test
