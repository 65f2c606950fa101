// The relay's config loader: every error names file:line and the key path, all errors come
// at once, and the messages are exact (operators grep for them).
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <array>
#include <cstdio>
#include <map>

#include "publish/producer_config.hpp"
#include "relay_config_loading.hpp"
#include "settings/relay_config.hpp"
#include "test_env.hpp"

using outbox::ConfigDiagnostics;
using outbox::RelayConfig;
using outbox::test::env_of;
using Loaded = outbox::test::LoadedConfig;

namespace {

Loaded load(const std::string& yaml, std::map<std::string, std::string> env = {}) {
  return outbox::test::load_relay_config_text(yaml, std::move(env));
}

const std::string& kMinimal = outbox::test::kMinimalRelayConfig;

}  // namespace

TEST_CASE("a minimal config gets production defaults", "[config]") {
  const Loaded loaded = load(kMinimal);
  REQUIRE(loaded.errors.empty());
  REQUIRE(loaded.config);
  const RelayConfig& config = *loaded.config;
  CHECK(config.mysql.host == "127.0.0.1");
  CHECK(config.mysql.port == 3306);
  CHECK(config.kafka.topic == "outbox.{aggregate_type}");
  CHECK(config.relay.workers == 2);
  CHECK(config.relay.batch_size == 2000);
  CHECK(config.relay.lease == std::chrono::seconds(60));
  CHECK(config.relay.poll_interval == std::chrono::milliseconds(25));
  CHECK(config.relay.poll_interval_max == std::chrono::milliseconds(500));
  CHECK(config.relay.minimal_row_image);
  CHECK(config.log.level == "info");
}

TEST_CASE("relay.binlog_row_image is minimal or the server's and prints as read", "[config]") {
  const Loaded server = load(kMinimal + "relay:\n  binlog_row_image: server\n");
  REQUIRE(server.config);
  CHECK_FALSE(server.config->relay.minimal_row_image);
  CHECK(outbox::print_relay_config(*server.config).find("binlog_row_image: server") !=
        std::string::npos);
  const Loaded full = load(kMinimal + "relay:\n  binlog_row_image: full\n");
  CHECK_FALSE(full.config);
  CHECK(full.errors.find("relay.binlog_row_image: must be one of") != std::string::npos);
}

TEST_CASE("every key of the example config is read", "[config]") {
  outbox::test::TempDir dir;
  const std::string example = outbox::test::source_dir() + "/config/relay.example.yaml";
  ConfigDiagnostics diagnostics(example);
  const auto config = outbox::load_relay_config(
      example, env_of({{"OUTBOX_MYSQL_PASSWORD", "secret"}}), diagnostics);
  INFO(diagnostics.render());
  REQUIRE(config);
  CHECK(config->mysql.password == "secret");
}

TEST_CASE("durations, env substitution and overrides are applied", "[config]") {
  const Loaded loaded = load(
      "mysql:\n"
      "  host: db.internal\n"
      "  port: 3307\n"
      "  user: relay\n"
      "  password: ${DB_PASSWORD}\n"
      "  database: ${DB_NAME:-orders}\n"
      "kafka:\n"
      "  bootstrap_servers: ${BROKERS}\n"
      "  topic: events.{aggregate_type}.{event_type}\n"
      "  topics:\n"
      "    payment: payments.v1\n"
      "  properties:\n"
      "    linger.ms: 5\n"
      "    compression.type: lz4\n"
      "relay:\n"
      "  workers: 4\n"
      "  batch_size: 200\n"
      "  lease: 2m\n"
      "  poll_interval: 50ms\n"
      "log:\n"
      "  level: debug\n"
      "  format: json\n",
      {{"DB_PASSWORD", "p@ss$word"}, {"BROKERS", "k1:9092,k2:9092"}});
  INFO(loaded.errors);
  REQUIRE(loaded.config);
  const RelayConfig& config = *loaded.config;
  CHECK(config.mysql.password == "p@ss$word");
  CHECK(config.mysql.database == "orders");
  CHECK(config.kafka.bootstrap_servers == "k1:9092,k2:9092");
  CHECK(config.kafka.topics.size() == 1);
  CHECK(config.kafka.topics[0].key == "payment");
  CHECK(config.kafka.properties.size() == 2);
  CHECK(config.relay.lease == std::chrono::minutes(2));
  CHECK(config.relay.poll_interval == std::chrono::milliseconds(50));
  CHECK(config.log.format == outbox::LogFormat::kJson);
}

TEST_CASE("all errors are reported at once with file, line and key path", "[config]") {
  const Loaded loaded = load(
      "mysql:\n"                         // 1
      "  port: seventy\n"                // 2
      "  user: relay\n"                  // 3
      "  password: ${MISSING_SECRET}\n"  // 4
      "kafka:\n"                         // 5
      "  bootstrap_servers: k:9092\n"    // 6
      "  topic: outbox.{aggregate}\n"    // 7
      "relay:\n"                         // 8
      "  wokers: 3\n"                    // 9
      "  batch_size: 0\n"                // 10
      "  lease: thirty\n"                // 11
      "  poll_interval: 2h\n"            // 12
      "log:\n"                           // 13
      "  level: verbose\n");             // 14
  CHECK_FALSE(loaded.config);
  CHECK(loaded.errors ==
        "relay.yaml:1: mysql.database: is required\n"
        "relay.yaml:2: mysql.port: must be an integer, got \"seventy\"\n"
        "relay.yaml:4: mysql.password: environment variable MISSING_SECRET is not set\n"
        "relay.yaml:7: kafka.topic: unknown placeholder {aggregate} in \"outbox.{aggregate}\" "
        "(known: {aggregate_type}, {event_type})\n"
        "relay.yaml:9: relay.wokers: unknown key (did you mean relay.workers?)\n"
        "relay.yaml:10: relay.batch_size: must be between 1 and 10000, got 0\n"
        "relay.yaml:11: relay.lease: must be a duration like 30s or 50ms (units us, ms, s, m, "
        "h, d), got \"thirty\"\n"
        "relay.yaml:12: relay.poll_interval: must be between 1ms and 1m, got 2h\n"
        "relay.yaml:14: log.level: must be one of trace, debug, info, warn, error; got "
        "\"verbose\"\n");
}

TEST_CASE("wrong types and unknown sections are named", "[config]") {
  const Loaded loaded = load(kMinimal +
                             "relay:\n"
                             "  workers: [1, 2]\n"
                             "  lease: 90\n"
                             "monitoring:\n"
                             "  port: 9100\n");
  CHECK(loaded.errors ==
        "relay.yaml:7: relay.workers: must be an integer, got a list\n"
        "relay.yaml:8: relay.lease: must be a duration like 30s or 50ms "
        "(units us, ms, s, m, h, d), got \"90\"\n"
        "relay.yaml:9: monitoring: unknown key\n");
}

TEST_CASE("kafka properties are checked by librdkafka and guarded", "[config]") {
  const Loaded loaded = load(kMinimal +
                             "  properties:\n"
                             "    linger.ms: soon\n"
                             "    no.such.property: 1\n"
                             "    acks: 1\n"
                             "    enable.idempotence: false\n"
                             "    bootstrap.servers: other:9092\n");
  CHECK(loaded.errors ==
        "relay.yaml:7: kafka.properties.linger.ms: librdkafka rejects it: Invalid value for "
        "configuration property \"queue.buffering.max.ms\"\n"
        "relay.yaml:8: kafka.properties.no.such.property: librdkafka rejects it: No such "
        "configuration property: \"no.such.property\"\n"
        "relay.yaml:9: kafka.properties.acks: must stay all: an event is marked PUBLISHED only "
        "once every in-sync replica has it\n"
        "relay.yaml:10: kafka.properties.enable.idempotence: must stay true: the relay relies on "
        "the idempotent producer for per-partition order and for retries that do not duplicate\n"
        "relay.yaml:11: kafka.properties.bootstrap.servers: set kafka.bootstrap_servers instead\n");
}

TEST_CASE("the lease must outlast the producer's delivery timeout", "[config]") {
  const Loaded loaded = load(kMinimal +
                             "  properties:\n"
                             "    message.timeout.ms: 60000\n"
                             "relay:\n"
                             "  lease: 60s\n");
  CHECK(loaded.errors ==
        "relay.yaml:9: relay.lease: must exceed the producer's delivery timeout "
        "(message.timeout.ms = 1m) by at least 5s, or a lease can end while its delivery is "
        "pending and another relay publishes the event again\n");
}

TEST_CASE("the stall timeout must exceed the longest wait without a health tick", "[config]") {
  // Defaults: 5s connect + 30s for one statement + 2s for a broker probe + 10s backoff = 47s.
  CHECK(load(kMinimal + "metrics:\n"
                        "  stall_timeout: 47s\n")
            .errors ==
        "relay.yaml:7: metrics.stall_timeout: must exceed 47s, the longest a worker loop "
        "legitimately goes without a health tick: mysql.connect_timeout + mysql.read_timeout "
        "(one statement) + 2s (a broker probe) + the longer of relay.backoff_max and "
        "relay.poll_interval_max\n");
  CHECK(load(kMinimal + "metrics:\n"
                        "  stall_timeout: 48s\n")
            .errors.empty());
  // Every key named counts: a longer statement timeout or backoff needs a longer stall timeout.
  const Loaded longer = load(
      "mysql:\n"
      "  user: relay\n"
      "  database: app\n"
      "  read_timeout: 1m\n"
      "kafka:\n"
      "  bootstrap_servers: localhost:9092\n"
      "relay:\n"
      "  backoff_max: 1m\n"
      "metrics:\n"
      "  stall_timeout: 2m\n");
  INFO(longer.errors);
  CHECK(longer.errors.find("metrics.stall_timeout: must exceed 127s, ") != std::string::npos);
}

TEST_CASE("password and password_file are exclusive and the file newline is dropped", "[config]") {
  outbox::test::TempDir dir;
  const std::string secret = dir.write("password", "s3cret\n");
  const Loaded from_file =
      load("mysql:\n  user: relay\n  database: app\n  password_file: " + secret +
           "\nkafka:\n  bootstrap_servers: k:9092\n");
  REQUIRE(from_file.config);
  CHECK(from_file.config->mysql.password == "s3cret");

  const Loaded both = load(
      "mysql:\n  user: relay\n  database: app\n  password: x\n"
      "  password_file: " +
      secret + "\nkafka:\n  bootstrap_servers: k:9092\n");
  CHECK(both.errors ==
        "relay.yaml:5: mysql.password_file: set either mysql.password or mysql.password_file, "
        "not both\n");

  const Loaded missing = load(
      "mysql:\n  user: relay\n  database: app\n  password_file: /nonexistent/pw\n"
      "kafka:\n  bootstrap_servers: k:9092\n");
  CHECK(missing.errors ==
        "relay.yaml:4: mysql.password_file: cannot read /nonexistent/pw: No such file or "
        "directory\n");
}

TEST_CASE("a password_file other users can read is a warning, never echoed", "[config]") {
  outbox::test::TempDir dir;
  const std::string secret = dir.write("password", "s3cret\n");
  const std::string yaml = "mysql:\n  user: relay\n  database: app\n  password_file: " + secret +
                           "\nkafka:\n  bootstrap_servers: k:9092\n";
  REQUIRE(chmod(secret.c_str(), 0644) == 0);
  const Loaded readable = load(yaml);
  REQUIRE(readable.config);  // a warning, not an error
  CHECK(readable.warnings ==
        "warning: relay.yaml:4: mysql.password_file: mode 0644: readable by every user of the "
        "machine (chmod 600 " +
            secret + ", or 640 with a group of its own)\n");
  CHECK(readable.warnings.find("s3cret") == std::string::npos);
  CHECK(readable.config->mysql.password_file == secret);

  REQUIRE(chmod(secret.c_str(), 0600) == 0);
  CHECK(load(yaml).warnings.empty());
  REQUIRE(chmod(secret.c_str(), 0640) == 0);
  CHECK(load(yaml).warnings.empty());
}

TEST_CASE("inline secrets in a config every user can read are warnings naming file, mode and key",
          "[config]") {
  // load_relay_config_text's temp file cannot be chmod-ed: this one is written and loaded here.
  outbox::test::TempDir dir;
  const std::string yaml =
      "mysql:\n"                                                // 1
      "  user: relay\n"                                         // 2
      "  password: relay-s3cret\n"                              // 3
      "  database: app\n"                                       // 4
      "kafka:\n"                                                // 5
      "  bootstrap_servers: k:9092\n"                           // 6
      "  properties:\n"                                         // 7
      "    sasl.username: relay\n"                              // 8
      "    sasl.password: kafka-s3cret\n"                       // 9
      "    ssl.key.password: ${OUTBOX_KEY_PASSWORD}\n"          // 10: from the environment
      "    ssl.keystore.password: ${UNSET:-keystore-s3cret}\n"  // 11: the file's fallback
      "outboxctl:\n"                                            // 12
      "  user: admin\n"                                         // 13
      "  password: admin-s3cret\n";                             // 14
  const std::string file = dir.write("relay.yaml", yaml);
  const auto load_warnings = [&] {
    ConfigDiagnostics diagnostics(file);
    const auto config = outbox::load_relay_config(
        file, env_of({{"OUTBOX_KEY_PASSWORD", "key-s3cret"}}), diagnostics);
    INFO(diagnostics.render());
    CHECK(config);  // a warning, never an error
    return diagnostics.render_warnings();
  };

  REQUIRE(chmod(file.c_str(), 0644) == 0);
  const std::string exposed =
      "a secret written inline, in a file of mode 0644: readable by "
      "every user of the machine (chmod 600 " +
      file + ", or 640 with a group of its own)\n";
  const std::string warnings = load_warnings();
  CHECK(warnings == "warning: " + file + ":3: mysql.password: " + exposed +  //
                        "warning: " + file + ":9: kafka.properties.sasl.password: " + exposed +
                        "warning: " + file + ":11: kafka.properties.ssl.keystore.password: " +
                        exposed + "warning: " + file + ":14: outboxctl.password: " + exposed);
  CHECK(warnings.find("s3cret") == std::string::npos);

  REQUIRE(chmod(file.c_str(), 0604) == 0);  // other users, not the group: still exposed
  CHECK(load_warnings().find("mode 0604: readable by every user") != std::string::npos);
  REQUIRE(chmod(file.c_str(), 0640) == 0);  // the .deb's mode
  CHECK(load_warnings().empty());
  REQUIRE(chmod(file.c_str(), 0600) == 0);
  CHECK(load_warnings().empty());
}

TEST_CASE("a config every user can read but holding no secret of its own is not a warning",
          "[config]") {
  // Secrets from the environment or from files (the shipped relay.yaml's way) are not in it.
  outbox::test::TempDir dir;
  const std::string secret = dir.write("password", "s3cret\n");
  REQUIRE(chmod(secret.c_str(), 0600) == 0);
  const std::string file = dir.write(
      "relay.yaml", "mysql:\n  user: relay\n  database: app\n  password_file: " + secret +
                        "\nkafka:\n  bootstrap_servers: k:9092\n  properties:\n"
                        "    sasl.password: ${OUTBOX_SASL_PASSWORD}\n"
                        "    sasl.username: relay\n"
                        "outboxctl:\n  user: admin\n  password: ${OUTBOX_ADMIN_PASSWORD:-}\n");
  REQUIRE(chmod(file.c_str(), 0644) == 0);
  ConfigDiagnostics diagnostics(file);
  const auto config = outbox::load_relay_config(
      file, env_of({{"OUTBOX_SASL_PASSWORD", "kafka-s3cret"}}), diagnostics);
  INFO(diagnostics.render());
  REQUIRE(config);
  CHECK(diagnostics.render_warnings().empty());
}

TEST_CASE("kafka.property_files: a property's value from a file, read when the conf is made",
          "[config][secrets]") {
  outbox::test::TempDir dir;
  const std::string secret = dir.write("kafka-password", "S3cr3t-Zebra-42\n");
  REQUIRE(chmod(secret.c_str(), 0600) == 0);
  const Loaded loaded = load(kMinimal +
                             "  properties:\n"
                             "    security.protocol: SASL_SSL\n"
                             "    sasl.mechanisms: SCRAM-SHA-512\n"
                             "    sasl.username: relay\n"
                             "  property_files:\n"
                             "    sasl.password: " +
                             secret + "\n");
  INFO(loaded.errors);
  REQUIRE(loaded.config);
  CHECK(loaded.warnings.empty());
  const auto& files = loaded.config->kafka.property_files;
  REQUIRE(files.size() == 1);
  CHECK(files[0].name == "sasl.password");
  CHECK(files[0].path == secret);
  CHECK(files[0].line == 11);

  // The settings hold the path, never the value: the file is read when a conf is made.
  bool found = false;
  for (const outbox::KafkaProperty& property : outbox::producer_properties(loaded.config->kafka)) {
    CHECK(property.value.find("S3cr3t-Zebra-42") == std::string::npos);
    if (property.name == "sasl.password") {
      found = true;
      CHECK(property.file == secret);
      CHECK(std::string(property.origin) == "kafka.property_files");
    }
  }
  CHECK(found);
  auto conf = outbox::make_producer_conf(loaded.config->kafka);
  REQUIRE(conf);
  std::array<char, 128> value{};
  size_t size = value.size();
  REQUIRE(rd_kafka_conf_get(conf.value().get(), "sasl.password", value.data(), &size) ==
          RD_KAFKA_CONF_OK);
  CHECK(std::string(value.data()) == "S3cr3t-Zebra-42");

  // A rotated file: the next conf (a producer created later) has the new value.
  dir.write("kafka-password", "S3cr3t-Zebra-43\n");
  auto rotated = outbox::make_producer_conf(loaded.config->kafka);
  REQUIRE(rotated);
  size = value.size();
  REQUIRE(rd_kafka_conf_get(rotated.value().get(), "sasl.password", value.data(), &size) ==
          RD_KAFKA_CONF_OK);
  CHECK(std::string(value.data()) == "S3cr3t-Zebra-43");

  // --print-config names the file, never the value.
  const std::string printed = outbox::print_relay_config(*loaded.config);
  CHECK(printed.find("S3cr3t-Zebra") == std::string::npos);
  CHECK(printed.find("property_files:\n    sasl.password: " + secret) != std::string::npos);

  // Gone by the time the producer is made: an error naming the key and the file.
  REQUIRE(std::remove(secret.c_str()) == 0);
  auto missing = outbox::make_producer_conf(loaded.config->kafka);
  REQUIRE_FALSE(missing);
  CHECK(missing.error().message == "kafka.property_files.sasl.password: cannot read " + secret +
                                       ": No such file or directory");
}

TEST_CASE("kafka.property_files: errors name the key and line, never the value",
          "[config][secrets]") {
  outbox::test::TempDir dir;
  const std::string secret = dir.write("secret", "S3cr3t-Zebra-42\n");
  const std::string empty = dir.write("empty", "\n");
  const std::string acks = dir.write("acks", "1\n");
  REQUIRE(chmod(secret.c_str(), 0644) == 0);
  REQUIRE(chmod(acks.c_str(), 0600) == 0);
  const Loaded loaded = load(kMinimal +
                             "  properties:\n"
                             "    sasl.password: inline\n"
                             "  property_files:\n"
                             "    sasl.password: " +
                             secret +
                             "\n"
                             "    ssl.key.password: /nonexistent/key-password\n"
                             "    sasl.oauthbearer.client.secret: " +
                             empty +
                             "\n"
                             "    security.protocol: " +
                             secret +
                             "\n"
                             "    acks: " +
                             acks + "\n");
  CHECK_FALSE(loaded.config);
  CHECK(loaded.errors ==
        "relay.yaml:9: kafka.property_files.sasl.password: is also set in kafka.properties "
        "(line 7): set it in one of the two\n"
        "relay.yaml:10: kafka.property_files.ssl.key.password: cannot read "
        "/nonexistent/key-password: No such file or directory\n"
        "relay.yaml:11: kafka.property_files.sasl.oauthbearer.client.secret: " +
            empty +
            " is empty\n"
            "relay.yaml:12: kafka.property_files.security.protocol: librdkafka rejects it: "
            "Invalid value \"*****\" for configuration property \"security.protocol\"\n"
            "relay.yaml:13: kafka.property_files.acks: must stay all: an event is marked "
            "PUBLISHED only once every in-sync replica has it\n");
  CHECK(loaded.errors.find("S3cr3t-Zebra-42") == std::string::npos);
  // (The inline sasl.password on line 7 may be a warning of its own: it depends on the mode
  // the umask gave relay.yaml.)
  CHECK(loaded.warnings.find(
            "warning: relay.yaml:12: kafka.property_files.security.protocol: mode 0644: readable "
            "by every user of the machine (chmod 600 " +
            secret + ", or 640 with a group of its own)\n") != std::string::npos);
  CHECK(loaded.warnings.find("S3cr3t-Zebra-42") == std::string::npos);
}

TEST_CASE("a refused value is hidden only when it is a secret or comes from a file",
          "[config][secrets]") {
  // librdkafka quotes what it refuses; an ordinary value helps its owner, so it stays.
  const Loaded loaded = load(kMinimal +
                             "  properties:\n"
                             "    message.max.bytes: 999\n");
  INFO(loaded.errors);
  CHECK(loaded.errors.find("kafka.properties.message.max.bytes: librdkafka rejects it: ") !=
        std::string::npos);
  CHECK(loaded.errors.find("value 999 is outside") != std::string::npos);
  CHECK(loaded.errors.find("*****") == std::string::npos);
}

TEST_CASE("syntax errors and unreadable files are config errors too", "[config]") {
  const Loaded syntax = load("mysql:\n  user: [unclosed\n");
  CHECK(syntax.errors.rfind("relay.yaml:3: YAML syntax error: ", 0) == 0);

  ConfigDiagnostics diagnostics("/nonexistent/relay.yaml");
  CHECK_FALSE(outbox::load_relay_config("/nonexistent/relay.yaml", env_of({}), diagnostics));
  CHECK(diagnostics.render() ==
        "/nonexistent/relay.yaml: cannot read file: No such file or directory\n");
}

TEST_CASE("a key written twice is an error", "[config]") {
  const Loaded loaded = load(kMinimal + "relay:\n  workers: 2\n  workers: 3\n");
  CHECK(loaded.errors == "relay.yaml:8: relay.workers: is set twice\n");
}

TEST_CASE("printing the config hides secrets", "[config]") {
  const Loaded loaded = load(kMinimal +
                                 "  properties:\n"
                                 "    sasl.password: hunter2\n",
                             {});
  REQUIRE(loaded.config);
  RelayConfig config = *loaded.config;
  config.mysql.password = "db-secret";
  const std::string printed = outbox::print_relay_config(config);
  CHECK(printed.find("hunter2") == std::string::npos);
  CHECK(printed.find("db-secret") == std::string::npos);
  CHECK(printed.find("sasl.password: \"*****\"") != std::string::npos);
  CHECK(printed.find("password: \"*****\"") != std::string::npos);
}

TEST_CASE("ordering transactional: per-aggregate claims, one Kafka transaction per batch",
          "[config]") {
  const Loaded plain = load(kMinimal);
  REQUIRE(plain.config);
  CHECK(outbox::claim_ordering(plain.config->relay) == outbox::Ordering::kPerAggregate);
  CHECK(plain.config->relay.ordering != outbox::DeliveryOrder::kTransactional);
  CHECK(outbox::ordering_name(plain.config->relay) == "per_aggregate");

  const Loaded loaded = load(kMinimal + "relay:\n  ordering: transactional\n");
  REQUIRE(loaded.errors.empty());
  REQUIRE(loaded.config);
  CHECK(outbox::claim_ordering(loaded.config->relay) == outbox::Ordering::kPerAggregate);
  CHECK(loaded.config->relay.ordering == outbox::DeliveryOrder::kTransactional);
  // Chains cost no round trip per version there: as long as the batch has room for.
  CHECK(loaded.config->relay.chain_length == outbox::kLongChainLength);
  // per_aggregate pipelines its chains by default: they cost no round trip per version either.
  CHECK(plain.config->relay.ordering == outbox::DeliveryOrder::kPipelined);
  CHECK(plain.config->relay.chain_length == outbox::kLongChainLength);
  const Loaded waves = load(kMinimal + "relay:\n  pipelined_chains: false\n");
  REQUIRE(waves.config);
  CHECK(waves.config->relay.ordering == outbox::DeliveryOrder::kWaves);
  CHECK(waves.config->relay.chain_length == outbox::kWaveChainLength);
  CHECK(outbox::print_relay_config(*waves.config).find("pipelined_chains: false") !=
        std::string::npos);
  CHECK(outbox::print_relay_config(*loaded.config).find("ordering: transactional") !=
        std::string::npos);

  // The relay names each producer's transactional.id: a user's would be shared by all.
  const Loaded own_id = load(kMinimal +
                             "  properties:\n"
                             "    transactional.id: mine\n"
                             "relay:\n"
                             "  ordering: transactional\n");
  CHECK(own_id.errors.find(
            "relay.yaml:7: kafka.properties.transactional.id: is set by the relay: "
            "relay.ordering: transactional names one per producer after relay.instance_id") !=
        std::string::npos);

  const Loaded unknown = load(kMinimal + "relay:\n  ordering: transactions\n");
  CHECK(unknown.errors.find("relay.yaml:7: relay.ordering:") != std::string::npos);
}
