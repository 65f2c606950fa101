#pragma once

#include <string>

namespace outbox {

// Whose fault a failed delivery is, which decides what it does to its row.
enum class FailureKind {
  // The relay itself gave up on it (drain deadline purge, producer replaced, its own queue
  // full or the enqueue deadline passed): back to PENDING, no attempt counted.
  kNotAttempted,
  // The event's own fault: the message is too large or invalid, the destination refuses it by
  // policy or authorisation, its topic name is illegal. Retrying the same message cannot
  // succeed: FAILED at once, with the error.
  kPermanent,
  // The topic or partition is not (yet) known: topic creation, partition growth and metadata
  // propagation take a while. Retried without counting attempts for relay.unknown_topic_grace,
  // then FAILED with the reason.
  kUnknownTopic,
  // The cluster's trouble (not enough replicas, no leader, timeouts, transport errors, and any
  // error not known to be one of the above). When it hits every event of a partition alike it
  // is an outage: no attempt counted, nothing parked, however long it lasts. Only an event that
  // fails this way while others of its partition in the same batch were delivered counts an
  // attempt (then RETRY with backoff, FAILED after relay.max_attempts).
  kTransient,
};

// Classifies a delivery report's error (rd_kafka_resp_err_t).
FailureKind classify_failure(int error_code);
// librdkafka's name of the error (MSG_TIMED_OUT, _PURGE_QUEUE).
std::string error_code_name(int error_code);

}  // namespace outbox
