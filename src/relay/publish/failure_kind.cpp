#include "publish/failure_kind.hpp"

#include <librdkafka/rdkafka.h>

namespace outbox {

FailureKind classify_failure(int error_code) {
  switch (static_cast<rd_kafka_resp_err_t>(error_code)) {
    // Our own decision to stop waiting, or our own trouble: not the event's fault.
    case RD_KAFKA_RESP_ERR__PURGE_QUEUE:
    case RD_KAFKA_RESP_ERR__PURGE_INFLIGHT:
    case RD_KAFKA_RESP_ERR__FATAL:
    // Local backpressure: the message was never handed over in time.
    case RD_KAFKA_RESP_ERR__QUEUE_FULL:
    // send() itself failed before handing the message over.
    case RD_KAFKA_RESP_ERR__FAIL:
    // A chained version not sent: the one before it was not acknowledged
    // (chained_deliveries.hpp).
    case RD_KAFKA_RESP_ERR__PREV_IN_PROGRESS:
      return FailureKind::kNotAttempted;
    // The message itself is unacceptable, or the destination refuses it for good.
    case RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE:
    case RD_KAFKA_RESP_ERR_RECORD_LIST_TOO_LARGE:
    case RD_KAFKA_RESP_ERR_INVALID_RECORD:
    case RD_KAFKA_RESP_ERR_INVALID_TIMESTAMP:
    case RD_KAFKA_RESP_ERR_TOPIC_EXCEPTION:  // also: the row renders an illegal topic name
    case RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED:
    case RD_KAFKA_RESP_ERR_POLICY_VIOLATION:
    case RD_KAFKA_RESP_ERR_UNSUPPORTED_FOR_MESSAGE_FORMAT:
    case RD_KAFKA_RESP_ERR__INVALID_ARG:
    case RD_KAFKA_RESP_ERR__BAD_MSG:
      return FailureKind::kPermanent;
    case RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART:
    case RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC:
    case RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION:
      return FailureKind::kUnknownTopic;
    // Everything else, CLUSTER_AUTHORIZATION_FAILED included (the producer's own permission,
    // the same for every event), is the cluster's trouble.
    default:
      return FailureKind::kTransient;
  }
}

std::string error_code_name(int error_code) {
  return rd_kafka_err2name(static_cast<rd_kafka_resp_err_t>(error_code));
}

}  // namespace outbox
