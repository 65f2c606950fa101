// The relay against a SASL_SSL cluster (scripts/kafka-cluster.sh with
// OUTBOX_KAFKA_SECURITY=sasl_ssl: the "kafka-sasl: " registration in tests/CMakeLists.txt, which
// also runs the [sasl-matrix] tests there). A wrong password is refused: the relay says so in its
// log and on /readyz, and marks nothing. Read back with kcat holding the right credentials.
#include <sys/stat.h>
#include <catch2/catch.hpp>

#include "harness/service_configs.hpp"
#include "http_scrape.hpp"
#include "kafka_faults.hpp"
#include "poll.hpp"
#include "relay_process.hpp"
#include "test_kafka.hpp"

using namespace outbox::test;

TEST_CASE("SASL_SSL with a wrong password: refused, named in the log and /readyz, nothing marked",
          "[.][sasl-only]") {
  TestKafkaCluster cluster;
  // Only meaningful on the SASL_SSL cluster; the plaintext registration does not list it.
  REQUIRE_FALSE(outbox::harness::kafka_client_security().password_file.empty());
  cluster->create_topic("outbox.order", 4);
  TestDatabase db;
  TempDir dir;
  const std::string wrong = dir.write("kafka-password", "Wrong-Zebra-42\n");
  REQUIRE(chmod(wrong.c_str(), 0600) == 0);
  RelayTestConfig settings = kafka_relay_config("wrong-password", "");
  settings.sasl_password_file = wrong;
  RelayProcess relay(db, cluster.bootstrap(), settings);
  db.insert_events(20, "refused", "order", 20);

  // The broker's words, from librdkafka's error callback.
  if (!eventually(
          [&] { return logged(relay, "SASL authentication error: Authentication failed"); }))
    FAIL("no authentication failure in the relay's log:\n" << relay.log());
  CHECK(logged(relay, "_AUTHENTICATION"));
  // /readyz: not ready, and why.
  HttpAnswer ready;
  REQUIRE(eventually([&] {
    ready = http_get(relay.metrics_port(), "/readyz");
    return ready.status == 503 &&
           ready.body.find("the broker refused authentication") != std::string::npos;
  }));
  INFO("/readyz: " << ready.body);
  CHECK(ready.body.find("waiting for Kafka") != std::string::npos);
  CHECK(ready.body.find("Wrong-Zebra-42") == std::string::npos);
  CHECK(db.count("status = 'PUBLISHED'") == 0);
  CHECK(db.count("status = 'PENDING' AND lease_owner IS NULL") == 20);
  stop_gracefully(relay);
  CHECK(relay.log().find("Wrong-Zebra-42") == std::string::npos);
  // kcat, with the right credentials: the topic exists and holds nothing.
  CHECK(read_topic(cluster.bootstrap(), "outbox.order").empty());
}
