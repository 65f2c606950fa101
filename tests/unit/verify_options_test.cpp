// outbox-verify's command line and the guard on what goes into its SQL.
#include <catch2/catch.hpp>

#include "sql_literal.hpp"
#include "verify_options.hpp"

namespace {

std::optional<outbox::verify::ParsedCommand> parse(std::vector<const char*> args,
                                                   std::string& error) {
  args.insert(args.begin(), "outbox-verify");
  return outbox::verify::parse_command(static_cast<int>(args.size()), args.data(), error);
}

}  // namespace

TEST_CASE("outbox-verify parses the windows and the soak commands", "[verify-cli]") {
  std::string error;
  auto windows = parse({"--windows", "4,6", "--without-fault", "6", "--port", "3307", "--report",
                        "r.yaml", "--keep"},
                       error);
  REQUIRE(windows);
  REQUIRE(windows->windows);
  CHECK(windows->windows->windows == std::set<int>{4, 6});
  CHECK(windows->windows->without_fault == 6);
  CHECK(windows->windows->server.port == 3307);
  CHECK(windows->windows->common.report == "r.yaml");
  CHECK(windows->windows->common.keep);

  auto soak = parse({"soak", "--seed", "12345", "--events", "5000", "--faults", "30"}, error);
  REQUIRE(soak);
  REQUIRE(soak->soak);
  CHECK(soak->soak->seed == 12345U);
  CHECK(soak->soak->events == 5000);
  CHECK(soak->soak->faults == 30);
  CHECK(soak->soak->relays == 3);
  CHECK(soak->soak->consumers == 2);
  CHECK(soak->soak->common.kafka == outbox::verify::BrokerKind::kMock);  // the default
}

TEST_CASE("outbox-verify parses the ordering command", "[verify-cli]") {
  std::string error;
  auto ordering = parse({"ordering", "--aggregates", "50", "--versions", "8", "--relays", "2",
                         "--faults", "4", "--kafka", "real", "--ordering", "transactional"},
                        error);
  REQUIRE(ordering);
  REQUIRE(ordering->ordering);
  CHECK_FALSE(ordering->windows);
  CHECK(ordering->ordering->aggregates == 50);
  CHECK(ordering->ordering->versions == 8);
  CHECK(ordering->ordering->relays == 2);
  CHECK(ordering->ordering->faults == 4);
  CHECK(ordering->ordering->common.kafka == outbox::verify::BrokerKind::kReal);
  CHECK(ordering->ordering->common.ordering == "transactional");
  // One version has no order to keep; a windows flag is not the ordering run's.
  CHECK_FALSE(parse({"ordering", "--versions", "1"}, error));
  CHECK(error == "--versions: invalid value \"1\"");
  CHECK_FALSE(parse({"ordering", "--windows", "4"}, error));
  CHECK(error == "unknown option --windows for ordering");
}

TEST_CASE("outbox-verify runs on the mock cluster unless told --kafka real", "[verify-cli]") {
  std::string error;
  auto windows =
      parse({"--kafka", "real", "--kafka-script", "/opt/outbox/kafka-cluster.sh"}, error);
  REQUIRE(windows);
  REQUIRE(windows->windows);
  CHECK(windows->windows->common.kafka == outbox::verify::BrokerKind::kReal);
  CHECK(windows->windows->common.kafka_script == "/opt/outbox/kafka-cluster.sh");
  auto soak = parse({"soak", "--kafka", "real"}, error);
  REQUIRE(soak);
  REQUIRE(soak->soak);
  CHECK(soak->soak->common.kafka == outbox::verify::BrokerKind::kReal);
  CHECK(soak->soak->common.kafka_script.empty());
  auto mock = parse({"--kafka", "mock"}, error);
  REQUIRE(mock);
  CHECK(mock->windows->common.kafka == outbox::verify::BrokerKind::kMock);
  CHECK_FALSE(parse({"--kafka", "redpanda"}, error));
  CHECK(error == "--kafka: invalid value \"redpanda\"");
}

TEST_CASE("outbox-verify names the bad argument", "[verify-cli]") {
  std::string error;
  CHECK_FALSE(parse({"--windows", "8"}, error));
  CHECK(error == "--windows: invalid value \"8\"");
  CHECK_FALSE(parse({"soak", "--windows", "1"}, error));
  CHECK(error == "unknown option --windows for soak");
  CHECK_FALSE(parse({"--seed", "1"}, error));
  CHECK(error == "unknown option --seed");
  CHECK_FALSE(parse({"soak", "--events"}, error));
  CHECK(error == "--events needs a value");
}

TEST_CASE("only plain identifiers go into the verifier's SQL", "[verify-cli]") {
  CHECK(outbox::verify::sql_literal("8f758146-2d79-4c70-8964-3196e135866f") ==
        "'8f758146-2d79-4c70-8964-3196e135866f'");
  CHECK(outbox::verify::sql_literal("verify-w4-doomed-9/w0/c4") == "'verify-w4-doomed-9/w0/c4'");
  CHECK_THROWS_AS(outbox::verify::sql_literal("x' OR '1'='1"), std::invalid_argument);
  CHECK_THROWS_AS(outbox::verify::sql_literal("a\\b"), std::invalid_argument);
}
