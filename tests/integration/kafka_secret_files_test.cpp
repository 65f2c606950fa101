// kafka.property_files: a librdkafka property's value read from a file, and never shown. The
// relay runs with a distinctive secret in such a file; every output an operator or a scraper
// sees (--print-config, --check-config, the log, /metrics, /readyz, /healthz) is searched for
// it, with a file that works, one that other users can read, one whose value librdkafka refuses
// (it quotes refused values) and one that is missing. SIGHUP names a file that changed.
#include <signal.h>
#include <sys/stat.h>
#include <catch2/catch.hpp>

#include <string>

#include "child_process.hpp"
#include "http_scrape.hpp"
#include "poll.hpp"
#include "relay_process.hpp"
#include "test_database.hpp"
#include "test_kafka.hpp"

using outbox::test::eventually;
using outbox::test::http_get;
using outbox::test::logged;
using outbox::test::RelayProcess;
using outbox::test::RelayTestConfig;
using outbox::test::run_command;
using outbox::test::TempDir;
using outbox::test::TestBroker;
using outbox::test::TestDatabase;

namespace {

const std::string kSecret = "S3cr3t-Zebra-42";

// `text` (an output named `what`) must not hold the secret.
void check_hidden(const std::string& what, const std::string& text) {
  INFO(what << ":\n" << text);
  CHECK(text.find(kSecret) == std::string::npos);
}

}  // namespace

TEST_CASE("kafka.property_files: the secret is read from its file and shown nowhere",
          "[secrets][kafka-property-files]") {
  TestDatabase db;
  TestBroker broker(3, 4, {"outbox.order"});
  TempDir dir;
  // sasl.password with a PLAINTEXT listener: librdkafka takes it and does not use it, so the
  // relay publishes to the mock broker while holding the secret.
  const std::string secret_file = dir.write("kafka-password", kSecret + "\n");
  REQUIRE(chmod(secret_file.c_str(), 0644) == 0);  // a warning, not an error
  RelayTestConfig settings;
  settings.extra_kafka_settings = "  property_files:\n    sasl.password: " + secret_file + "\n";
  settings.extra_kafka_properties = "    sasl.username: relay\n";

  SECTION("a file that works") {
    RelayProcess relay(db, broker.bootstrap(), settings);
    const std::string config = relay.config_file();

    const auto printed = run_command({outbox::test::relay_binary(), "--print-config", config});
    CHECK(printed.status == 0);
    check_hidden("--print-config", printed.out + printed.err);
    CHECK(printed.out.find("property_files:\n    sasl.password: " + secret_file) !=
          std::string::npos);
    const auto checked = run_command({outbox::test::relay_binary(), "--check-config", config});
    CHECK(checked.status == 0);
    check_hidden("--check-config", checked.out + checked.err);
    CHECK(
        checked.err.find("kafka.property_files.sasl.password: mode 0644: readable by every user") !=
        std::string::npos);

    db.insert_events(50, "secret");
    REQUIRE(eventually([&] { return db.count("status = 'PUBLISHED'") == 50; }));
    const int port = relay.metrics_port();
    for (const char* path : {"/metrics", "/readyz", "/healthz"}) {
      const outbox::test::HttpAnswer answer = http_get(port, path);
      CHECK(answer.status == 200);
      check_hidden(path, answer.body);
    }
    CHECK(logged(relay, "kafka property sasl.password from file " + secret_file +
                            " (kafka.property_files)"));
    CHECK(logged(relay, "kafka.property_files.sasl.password: mode 0644"));

    // Rotation: the producers read the file when they are created; SIGHUP names the change.
    REQUIRE(chmod(secret_file.c_str(), 0600) == 0);
    dir.write("kafka-password", kSecret + "-rotated\n");
    relay.process().signal(SIGHUP);
    REQUIRE(eventually([&] {
      return logged(relay, "SIGHUP: kafka.property_files.sasl.password (" + secret_file +
                               ") changed; the producers read it when they are created, so it "
                               "takes effect only after a restart");
    }));
    outbox::test::stop_gracefully(relay);
    check_hidden("relay log", relay.log());
  }

  SECTION("a value librdkafka refuses, and a missing file, are config errors naming the key") {
    // librdkafka quotes a value it refuses: the secret in security.protocol.
    const std::string refused =
        dir.write("relay.yaml",
                  "mysql:\n  user: relay\n  database: app\nkafka:\n"
                  "  bootstrap_servers: " +
                      broker.bootstrap() +
                      "\n  property_files:\n"
                      "    security.protocol: " +
                      secret_file + "\n    ssl.key.password: " + dir.path() + "/missing\n");
    const auto checked = run_command({outbox::test::relay_binary(), "--check-config", refused});
    CHECK(checked.status == 78);
    check_hidden("--check-config", checked.out + checked.err);
    CHECK(checked.err.find(refused +
                           ":7: kafka.property_files.security.protocol: librdkafka rejects it: "
                           "Invalid value \"*****\" for configuration property "
                           "\"security.protocol\"\n") != std::string::npos);
    CHECK(checked.err.find(refused + ":8: kafka.property_files.ssl.key.password: cannot read " +
                           dir.path() + "/missing: No such file or directory\n") !=
          std::string::npos);
    const auto started = run_command({outbox::test::relay_binary(), "--config", refused});
    CHECK(started.status == 78);
    check_hidden("the relay's output", started.out + started.err);
  }
}
