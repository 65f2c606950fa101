// Whose fault a failed delivery is: the cluster's (retried, counting nothing while it hits
// every event alike), the event's own (FAILED at once), a topic not known yet (retried for a
// grace period), or the relay's own doing (released, no attempt).
#include <librdkafka/rdkafka.h>
#include <catch2/catch.hpp>

#include "publish/failure_kind.hpp"

using outbox::classify_failure;
using outbox::FailureKind;

TEST_CASE("broker and transport trouble is the cluster's", "[failure-policy]") {
  for (rd_kafka_resp_err_t error :
       {RD_KAFKA_RESP_ERR__MSG_TIMED_OUT, RD_KAFKA_RESP_ERR__TRANSPORT,
        RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION, RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS,
        RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS_AFTER_APPEND, RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE,
        RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT, RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN,
        RD_KAFKA_RESP_ERR__TIMED_OUT, RD_KAFKA_RESP_ERR_NETWORK_EXCEPTION,
        RD_KAFKA_RESP_ERR_CLUSTER_AUTHORIZATION_FAILED,
        RD_KAFKA_RESP_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER, RD_KAFKA_RESP_ERR_UNKNOWN}) {
    INFO(rd_kafka_err2name(error));
    CHECK(classify_failure(error) == FailureKind::kTransient);
  }
}

TEST_CASE("messages the broker can never take fail at once", "[failure-policy]") {
  for (rd_kafka_resp_err_t error :
       {RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE, RD_KAFKA_RESP_ERR_INVALID_RECORD,
        RD_KAFKA_RESP_ERR_RECORD_LIST_TOO_LARGE, RD_KAFKA_RESP_ERR_TOPIC_EXCEPTION,
        RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED, RD_KAFKA_RESP_ERR_POLICY_VIOLATION}) {
    INFO(rd_kafka_err2name(error));
    CHECK(classify_failure(error) == FailureKind::kPermanent);
  }
}

TEST_CASE("a topic or partition not known yet is retried for a grace period", "[failure-policy]") {
  for (rd_kafka_resp_err_t error :
       {RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART, RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC,
        RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION}) {
    INFO(rd_kafka_err2name(error));
    CHECK(classify_failure(error) == FailureKind::kUnknownTopic);
  }
}

TEST_CASE("deliveries the relay abandoned itself count no attempt", "[failure-policy]") {
  for (rd_kafka_resp_err_t error :
       {RD_KAFKA_RESP_ERR__PURGE_QUEUE, RD_KAFKA_RESP_ERR__PURGE_INFLIGHT, RD_KAFKA_RESP_ERR__FATAL,
        RD_KAFKA_RESP_ERR__QUEUE_FULL, RD_KAFKA_RESP_ERR__FAIL}) {
    INFO(rd_kafka_err2name(error));
    CHECK(classify_failure(error) == FailureKind::kNotAttempted);
  }
}
