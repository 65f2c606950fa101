#pragma once

// clang-format off: the mock header requires rdkafka.h first
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
// clang-format on

#include <string>

namespace outbox::test_broker {

// Applies one control line to the mock cluster and returns the reply: "ok" or "error: ...".
//   topic NAME PARTITIONS [REPLICATION]   create a topic
//   down BROKER|all / up BROKER|all       take brokers off / back on the network
//   rtt BROKER|all MILLISECONDS           delay every response of the broker(s)
//   errors APIKEY ERR [ERR...]            fail the next requests of APIKEY, one error each
//   topic-error TOPIC ERR                 every request for TOPIC fails with ERR (0 clears)
//   leader TOPIC PARTITION BROKER|none    move the partition's leader to BROKER (none: no
//                                         leader); with BROKER then down, only the partitions
//                                         it leads are unreachable
//   clear APIKEY                          drop queued request errors
//   ping                                  "ok"
// APIKEY is a name (Produce, Metadata, ...) or number; ERR a librdkafka error name without
// the RD_KAFKA_RESP_ERR_ prefix (NOT_LEADER_FOR_PARTITION, REQUEST_TIMED_OUT) or number.
std::string apply_command(rd_kafka_mock_cluster_t* cluster, int broker_count,
                          const std::string& line);

}  // namespace outbox::test_broker
