#pragma once

namespace outbox {

// What a failed delivery does to its row.
enum class FailureDisposition {
  kRetry,         // count an attempt, back off, try again; FAILED once attempts run out
  kPermanent,     // FAILED at once: retrying the same message cannot succeed
  kNotAttempted,  // the relay itself gave up on it (drain deadline purge, producer replaced,
                  // its own queue full): back to PENDING, no attempt counted
};

// Classifies a delivery report's error (rd_kafka_resp_err_t). Retriable: timeouts, leader
// changes, NOT_ENOUGH_REPLICAS, transport and every error not known to be permanent (an
// unknown error is retried, then parked by max_attempts, never dropped).
FailureDisposition classify_failure(int error_code);

}  // namespace outbox
