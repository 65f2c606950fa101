// Which delivery errors are retried, which park the event at once, and which are the relay's
// own doing (no attempt counted).
#include <librdkafka/rdkafka.h>
#include <catch2/catch.hpp>

#include "failure_policy.hpp"

using outbox::classify_failure;
using outbox::FailureDisposition;

TEST_CASE("broker and transport trouble is retried", "[failure-policy]") {
  for (rd_kafka_resp_err_t error :
       {RD_KAFKA_RESP_ERR__MSG_TIMED_OUT, RD_KAFKA_RESP_ERR__TRANSPORT,
        RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION, RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS,
        RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT, RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN,
        RD_KAFKA_RESP_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER, RD_KAFKA_RESP_ERR_UNKNOWN}) {
    INFO(rd_kafka_err2name(error));
    CHECK(classify_failure(error) == FailureDisposition::kRetry);
  }
}

TEST_CASE("messages the broker can never take fail at once", "[failure-policy]") {
  for (rd_kafka_resp_err_t error :
       {RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE, RD_KAFKA_RESP_ERR_INVALID_RECORD,
        RD_KAFKA_RESP_ERR_RECORD_LIST_TOO_LARGE, RD_KAFKA_RESP_ERR_TOPIC_EXCEPTION,
        RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART, RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC,
        RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED,
        RD_KAFKA_RESP_ERR_CLUSTER_AUTHORIZATION_FAILED, RD_KAFKA_RESP_ERR_POLICY_VIOLATION}) {
    INFO(rd_kafka_err2name(error));
    CHECK(classify_failure(error) == FailureDisposition::kPermanent);
  }
}

TEST_CASE("deliveries the relay abandoned itself count no attempt", "[failure-policy]") {
  for (rd_kafka_resp_err_t error :
       {RD_KAFKA_RESP_ERR__PURGE_QUEUE, RD_KAFKA_RESP_ERR__PURGE_INFLIGHT, RD_KAFKA_RESP_ERR__FATAL,
        RD_KAFKA_RESP_ERR__QUEUE_FULL, RD_KAFKA_RESP_ERR__FAIL}) {
    INFO(rd_kafka_err2name(error));
    CHECK(classify_failure(error) == FailureDisposition::kNotAttempted);
  }
}
