// The sections of the relay's file that only outboxctl acts on: retention windows are off
// unless set and never shorter than the broker's redelivery window; outboxctl's own account
// is read only when outboxctl connects. Messages are exact and name the keys.
#include <catch2/catch.hpp>

#include "outcome_printing.hpp"
#include "relay_config_loading.hpp"
#include "settings/operator_settings.hpp"
#include "test_env.hpp"

using namespace std::chrono_literals;
using outbox::Micros;
using outbox::test::kMinimalRelayConfig;
using outbox::test::load_relay_config_text;

TEST_CASE("retention is off unless a window is set", "[config][retention]") {
  const auto loaded = load_relay_config_text(kMinimalRelayConfig);
  REQUIRE(loaded.config);
  const outbox::RetentionSettings& retention = loaded.config->retention;
  CHECK_FALSE(retention.published_after);
  CHECK_FALSE(retention.consumed_after);
  CHECK_FALSE(retention.broker_redelivery_window);
  CHECK(retention.batch_size == 500);
  CHECK(loaded.config->outboxctl.user.empty());
}

TEST_CASE("retention windows are read in days and checked against the redelivery window",
          "[config][retention]") {
  const auto valid = load_relay_config_text(kMinimalRelayConfig +
                                            "retention:\n"
                                            "  broker_redelivery_window: 7d\n"
                                            "  published_after: 14d\n"
                                            "  consumed_after: 168h\n"
                                            "  batch_size: 100\n");
  REQUIRE(valid.errors.empty());
  CHECK(valid.config->retention.published_after == Micros(14 * 24h));
  CHECK(valid.config->retention.consumed_after == Micros(7 * 24h));
  CHECK(valid.config->retention.batch_size == 100);

  const auto short_windows = load_relay_config_text(kMinimalRelayConfig +
                                                    "retention:\n"
                                                    "  broker_redelivery_window: 7d\n"
                                                    "  published_after: 1d\n"
                                                    "  consumed_after: 6d\n"
                                                    "  batch_size: 5000\n");
  CHECK_FALSE(short_windows.config);
  CHECK(short_windows.errors ==
        "relay.yaml:8: retention.published_after: must not be shorter than "
        "retention.broker_redelivery_window (7d), got 1d: an event Kafka delivers again must "
        "still find its rows\n"
        "relay.yaml:9: retention.consumed_after: must not be shorter than "
        "retention.broker_redelivery_window (7d), got 6d: an event Kafka delivers again must "
        "still find its rows\n"
        "relay.yaml:10: retention.batch_size: must be between 1 and 1024, got 5000\n");

  const auto no_redelivery_window = load_relay_config_text(kMinimalRelayConfig +
                                                           "retention:\n"
                                                           "  published_after: 30d\n");
  CHECK(no_redelivery_window.errors ==
        "relay.yaml:6: retention.broker_redelivery_window: is required when "
        "retention.published_after or retention.consumed_after is set: the longest time in which "
        "Kafka may deliver an event again (the topics' retention.ms, or longer if consumer groups "
        "are ever reset), which no window may undercut\n");
}

TEST_CASE("outboxctl's account is validated by the relay but its password file is not read",
          "[config][outboxctl]") {
  const auto loaded = load_relay_config_text(kMinimalRelayConfig +
                                             "outboxctl:\n"
                                             "  user: admin\n"
                                             "  password_file: /nonexistent/admin-password\n");
  REQUIRE(loaded.errors.empty());
  const outbox::Outcome<outbox::MysqlEndpoint> endpoint =
      outbox::outboxctl_endpoint(loaded.config->mysql, loaded.config->outboxctl);
  REQUIRE_FALSE(endpoint);
  CHECK(endpoint.error().message ==
        "outboxctl.password_file: cannot read /nonexistent/admin-password: No such file or "
        "directory");

  const auto both = load_relay_config_text(kMinimalRelayConfig +
                                           "outboxctl:\n"
                                           "  password: a\n"
                                           "  password_file: /b\n");
  CHECK(both.errors ==
        "relay.yaml:6: outboxctl.user: is required with outboxctl.password or "
        "outboxctl.password_file (without it outboxctl connects as mysql.user with mysql's "
        "password)\n"
        "relay.yaml:8: outboxctl.password_file: set either outboxctl.password or "
        "outboxctl.password_file, not both\n");
}

TEST_CASE("outboxctl connects with its own account when one is set", "[config][outboxctl]") {
  outbox::test::TempDir dir;
  const std::string secret = dir.write("admin-password", "admin-secret\n");
  const auto loaded = load_relay_config_text(
      "mysql:\n"
      "  user: relay\n"
      "  password: relay-secret\n"
      "  database: app\n"
      "kafka:\n"
      "  bootstrap_servers: localhost:9092\n"
      "outboxctl:\n"
      "  user: admin\n"
      "  password_file: " +
      secret + "\n");
  REQUIRE(loaded.errors.empty());
  const auto endpoint = outbox::outboxctl_endpoint(loaded.config->mysql, loaded.config->outboxctl);
  REQUIRE(endpoint);
  CHECK(endpoint.value().user == "admin");
  CHECK(endpoint.value().password == "admin-secret");
  CHECK(endpoint.value().database == "app");

  const auto relay_account = load_relay_config_text(kMinimalRelayConfig);
  const auto same =
      outbox::outboxctl_endpoint(relay_account.config->mysql, relay_account.config->outboxctl);
  REQUIRE(same);
  CHECK(same.value().user == "relay");
}

TEST_CASE("print-config shows both sections with the password hidden", "[config][outboxctl]") {
  const auto loaded = load_relay_config_text(kMinimalRelayConfig +
                                             "outboxctl:\n"
                                             "  user: admin\n"
                                             "  password: admin-secret\n"
                                             "retention:\n"
                                             "  broker_redelivery_window: 7d\n"
                                             "  consumed_after: 30d\n");
  REQUIRE(loaded.config);
  const std::string printed = outbox::print_relay_config(*loaded.config);
  CHECK(printed.find("admin-secret") == std::string::npos);
  CHECK(printed.find("retention:\n"
                     "  published_after: ~\n"
                     "  consumed_after: 30d\n"
                     "  broker_redelivery_window: 7d\n"
                     "  batch_size: 500\n"
                     "outboxctl:\n"
                     "  user: admin\n"
                     "  password: \"*****\"\n"
                     "  password_file: \"\"\n") != std::string::npos);
}

namespace {

// A relay config whose mysql section reads its password from `password_file` (lines 1-6).
std::string config_with_password_file(const std::string& password_file) {
  return "mysql:\n  user: relay\n  password_file: " + password_file +
         "\n  database: app\nkafka:\n  bootstrap_servers: localhost:9092\n";
}

}  // namespace

TEST_CASE("outboxctl with an account of its own never reads the relay's password file",
          "[config][outboxctl]") {
  // As outbox-purge.service runs it: outboxctl's credential handed over, the relay's not.
  outbox::test::TempDir dir;
  const std::string admin_password = dir.write("outboxctl-password", "admin-secret\n");
  const std::string relay_password = dir.file("mysql-password");  // absent
  const std::string file = dir.write(
      "relay.yaml", config_with_password_file(relay_password) +
                        "outboxctl:\n  user: admin\n  password_file: " + admin_password + "\n");
  outbox::ConfigDiagnostics diagnostics(file);
  const auto config = outbox::load_outboxctl_config(file, outbox::test::env_of({}), diagnostics);
  INFO(diagnostics.render());
  REQUIRE(config);
  CHECK(config->mysql.password.empty());
  CHECK(config->mysql.password_file == relay_password);
  const auto endpoint = outbox::outboxctl_endpoint(config->mysql, config->outboxctl);
  REQUIRE(endpoint);
  CHECK(endpoint.value().user == "admin");
  CHECK(endpoint.value().password == "admin-secret");
  // Read again at every connection, and it must be outboxctl's file, not the relay's.
  CHECK(endpoint.value().password_file == admin_password);

  // The relay itself still refuses a password file it cannot read.
  outbox::ConfigDiagnostics relay_diagnostics(file);
  CHECK_FALSE(outbox::load_relay_config(file, outbox::test::env_of({}), relay_diagnostics));
  CHECK(relay_diagnostics.render() == file + ":3: mysql.password_file: cannot read " +
                                          relay_password + ": No such file or directory\n");
}

TEST_CASE("outboxctl without an account of its own needs the relay's password file and says so",
          "[config][outboxctl]") {
  outbox::test::TempDir dir;
  const std::string relay_password = dir.file("mysql-password");
  const std::string file = dir.write("relay.yaml", config_with_password_file(relay_password));
  outbox::ConfigDiagnostics diagnostics(file);
  const auto config = outbox::load_outboxctl_config(file, outbox::test::env_of({}), diagnostics);
  REQUIRE(config);
  const auto missing = outbox::outboxctl_endpoint(config->mysql, config->outboxctl);
  REQUIRE_FALSE(missing);
  CHECK(missing.error().message ==
        "mysql.password_file: cannot read " + relay_password +
            ": No such file or directory (outboxctl.user is not set, so outboxctl connects as "
            "mysql.user with its password; give outboxctl an account of its own with "
            "outboxctl.user and outboxctl.password_file)");

  dir.write("mysql-password", "relay-secret\n");
  const auto relay_account = outbox::outboxctl_endpoint(config->mysql, config->outboxctl);
  REQUIRE(relay_account);
  CHECK(relay_account.value().user == "relay");
  CHECK(relay_account.value().password == "relay-secret");
}
