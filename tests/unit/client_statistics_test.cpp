// librdkafka's statistics read without a JSON library: the four request counters summed over
// the brokers of a document, and totals that survive producer replacement.
#include <catch2/catch.hpp>

#include <string>

#include "publish/client_statistics.hpp"

using outbox::BrokerRequestTotals;
using outbox::ClientStatistics;
using outbox::parse_broker_request_totals;

namespace {

// The example of librdkafka 2.0.2's STATISTICS.md (window stats and partitions shortened), with
// non-zero counters and the `disconnects` / `connects` members its brokers have in 2.0.2. The
// topic is named "txretries" and a string holds the member text, to show that only a broker's
// own members count.
const std::string kSample = R"({
  "name": "rdkafka#producer-1",
  "client_id": "rdkafka",
  "type": "producer",
  "ts": 5016483227792,
  "time": 1527060869,
  "replyq": 0,
  "msg_cnt": 22710,
  "msg_size": 704010,
  "msg_max": 500000,
  "msg_size_max": 1073741824,
  "simple_cnt": 0,
  "metadata_cache_cnt": 1,
  "brokers": {
    "localhost:9092/2": {
      "name": "localhost:9092/2",
      "nodeid": 2,
      "nodename": "localhost:9092",
      "source": "learned",
      "state": "UP",
      "stateage": 9057234,
      "outbuf_cnt": 0,
      "outbuf_msg_cnt": 0,
      "waitresp_cnt": 0,
      "waitresp_msg_cnt": 0,
      "tx": 320,
      "txbytes": 84283332,
      "txerrs": 1,
      "txretries": 5,
      "txidle": -1,
      "req_timeouts": 2,
      "rx": 320,
      "rxbytes": 15708,
      "rxerrs": 0,
      "rxcorriderrs": 0,
      "rxpartial": 0,
      "zbuf_grow": 0,
      "buf_grow": 0,
      "wakeups": 591067,
      "connects": 2,
      "disconnects": 1,
      "int_latency": {"min": 86, "max": 59375, "avg": 23726, "sum": 5694616664, "stddev": 13982,
                      "p50": 28031, "p99_99": 59391, "outofrange": 0, "hdrsize": 11376,
                      "cnt": 240012},
      "rtt": {"min": 1580, "max": 3389, "avg": 2349, "sum": 79868, "cnt": 34},
      "req": {"Produce": 300, "Metadata": 20},
      "toppars": {
        "test-1": {"topic": "test", "partition": 1}
      }
    },
    "localhost:9093/3": {
      "name": "localhost:9093/3",
      "nodeid": 3,
      "nodename": "localhost:9093",
      "source": "learned",
      "state": "UP",
      "stateage": 9057209,
      "tx": 310,
      "txerrs": 0,
      "txretries": 7,
      "req_timeouts": 0,
      "rx": 310,
      "connects": 4,
      "disconnects": 3,
      "rtt": {"min": 1704, "max": 3572, "avg": 2493, "sum": 87289, "stddev": 559, "cnt": 35},
      "toppars": {
        "txretries-0": {"topic": "txretries", "partition": 0}
      }
    },
    "GroupCoordinator": {
      "name": "GroupCoordinator",
      "nodeid": -1,
      "state": "INIT",
      "txerrs": 0,
      "txretries": 0,
      "req_timeouts": 0,
      "disconnects": 0,
      "toppars": {}
    }
  },
  "topics": {
    "txretries": {
      "topic": "txretries",
      "metadata_age": 9060,
      "batchsize": {"min": 99, "max": 391805, "avg": 272593, "sum": 18808985, "cnt": 69},
      "partitions": {
        "0": {"partition": 0, "broker": 3, "leader": 3, "desired": false, "unknown": false,
              "msgq_cnt": 1, "txmsgs": 2150617, "txretries": 1000, "next_ack_seq": 0},
        "-1": {"partition": -1, "broker": -1, "leader": -1, "consumer_lag": -1, "msgs": 1177}
      }
    }
  },
  "note": "\"txretries\": 1000, \\ and a tab\t escaped",
  "eos": {"idemp_state": "Assigned", "producer_id": 4, "producer_epoch": 0, "epoch_cnt": 1},
  "tx": 631,
  "tx_bytes": 168584479,
  "rx": 631,
  "rx_bytes": 31084,
  "txmsgs": 4300753,
  "txmsg_bytes": 133323343,
  "rxmsgs": 0,
  "rxmsg_bytes": 0,
  "ratio": 1.5e-3,
  "disconnects": 1000
})";

}  // namespace

TEST_CASE("librdkafka statistics: the request counters summed over the brokers", "[statistics]") {
  const auto totals = parse_broker_request_totals(kSample);
  REQUIRE(totals.ok());
  CHECK(totals.value().retries == 12);
  CHECK(totals.value().timeouts == 2);
  CHECK(totals.value().transmit_errors == 1);
  CHECK(totals.value().disconnects == 4);
  CHECK(totals.value().messages_transmitted == 4300753);  // the top level's, not a partition's
  CHECK(totals.value().any());
}

TEST_CASE("librdkafka statistics: a document without brokers counts nothing", "[statistics]") {
  const auto totals =
      parse_broker_request_totals(R"({"name":"p","brokers":{},"txretries":9,"txmsgs":0})");
  REQUIRE(totals.ok());
  CHECK_FALSE(totals.value().any());
  CHECK(totals.value().messages_transmitted == 0);
}

TEST_CASE("librdkafka statistics: text that is not one whole document is refused", "[statistics]") {
  // Cut anywhere inside, the sample never parses: nothing half counted.
  for (size_t length : {size_t{0}, size_t{1}, kSample.size() / 3, kSample.size() / 2,
                        kSample.find("\"txretries\": 7") + 13, kSample.size() - 1}) {
    INFO("first " << length << " characters");
    CHECK_FALSE(parse_broker_request_totals(kSample.substr(0, length)).ok());
  }
  const auto garbage = parse_broker_request_totals(R"({"brokers": {"b": {"txretries": 5x}}})");
  REQUIRE_FALSE(garbage.ok());
  CHECK(garbage.error().message == "librdkafka statistics: expected '}' at offset 33");
  CHECK_FALSE(parse_broker_request_totals("[1, 2]").ok());
  CHECK_FALSE(parse_broker_request_totals(R"({"a": 1} {"b": 2})").ok());
  CHECK_FALSE(
      parse_broker_request_totals(R"({"brokers": {"b": {"txretries": 99999999999999999999}}})")
          .ok());
}

TEST_CASE("request totals add up over producer generations and never go back", "[statistics]") {
  ClientStatistics statistics;
  statistics.record(1, BrokerRequestTotals{5, 1, 0, 2, 100});
  statistics.record(1, BrokerRequestTotals{7, 1, 0, 3, 150});  // the same producer, later
  statistics.record(2, BrokerRequestTotals{3, 0, 1, 1, 20});   // its replacement starts at zero
  statistics.record(1, BrokerRequestTotals{6, 0, 0, 3, 150});  // a broker left generation 1's
  const BrokerRequestTotals totals = statistics.totals();
  CHECK(totals.retries == 10);
  CHECK(totals.timeouts == 1);
  CHECK(totals.transmit_errors == 1);
  CHECK(totals.disconnects == 4);
  CHECK(totals.messages_transmitted == 170);
}

TEST_CASE("retired producers keep their counts and leave no entry behind", "[statistics]") {
  // Gapless producers are replaced after every failed batch: days of that are many thousands of
  // generations, each of which must not hold memory once its producer is gone.
  ClientStatistics statistics;
  for (int generation = 1; generation <= 10000; ++generation) {
    statistics.record(generation, BrokerRequestTotals{1, 0, 0, 1, 10});
    statistics.record(generation, BrokerRequestTotals{2, 0, 0, 1, 20});
    statistics.retire(generation);
  }
  statistics.record(10001, BrokerRequestTotals{5, 1, 0, 0, 50});  // the live one
  CHECK(statistics.generations_held() == 1);
  const BrokerRequestTotals totals = statistics.totals();
  CHECK(totals.retries == 20005);
  CHECK(totals.timeouts == 1);
  CHECK(totals.disconnects == 10000);
  CHECK(totals.messages_transmitted == 200050);
  statistics.retire(10001);
  statistics.retire(10001);  // twice: counted once
  CHECK(statistics.generations_held() == 0);
  CHECK(statistics.totals().retries == 20005);
}
