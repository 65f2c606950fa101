// Durations and ${VAR} substitution: the building blocks of every config value.
#include <catch2/catch.hpp>

#include "config/byte_size.hpp"
#include "config/duration.hpp"
#include "config/env_substitution.hpp"

using namespace std::chrono_literals;
using outbox::format_duration;
using outbox::Micros;
using outbox::parse_duration;
using outbox::substitute_env;

TEST_CASE("durations need a unit", "[config]") {
  CHECK(parse_duration("250us") == Micros(250));
  CHECK(parse_duration("50ms") == Micros(50ms));
  CHECK(parse_duration("30s") == Micros(30s));
  CHECK(parse_duration("5m") == Micros(5min));
  CHECK(parse_duration("1h") == Micros(1h));
  CHECK(parse_duration("7d") == Micros(168h));
  CHECK_FALSE(parse_duration("30"));
  CHECK_FALSE(parse_duration("ms"));
  CHECK_FALSE(parse_duration("-5s"));
  CHECK_FALSE(parse_duration("1.5s"));
  CHECK_FALSE(parse_duration("5 s"));
  CHECK_FALSE(parse_duration("999999999999d"));  // would overflow int64 microseconds
  CHECK(parse_duration("999999999999us") == Micros(999999999999));
  CHECK_FALSE(parse_duration("5w"));
}

TEST_CASE("durations print in their largest exact unit", "[config]") {
  CHECK(format_duration(Micros(60s)) == "1m");
  CHECK(format_duration(Micros(48h)) == "2d");
  CHECK(format_duration(Micros(1500ms)) == "1500ms");
  CHECK(format_duration(Micros(0)) == "0s");
  CHECK(format_duration(Micros(7)) == "7us");
}

TEST_CASE("environment references are replaced but plain braces are not", "[config]") {
  const outbox::EnvLookup env = [](const std::string& name) -> std::optional<std::string> {
    if (name == "HOST") return std::string("db1");
    if (name == "EMPTY") return std::string("");
    return std::nullopt;
  };
  CHECK(substitute_env("${HOST}:3306", env).value() == "db1:3306");
  CHECK(substitute_env("outbox.{aggregate_type}", env).value() == "outbox.{aggregate_type}");
  CHECK(substitute_env("${MISSING:-fallback}", env).value() == "fallback");
  CHECK(substitute_env("${EMPTY:-fallback}", env).value() == "");
  CHECK(substitute_env("cost $$5 and $x", env).value() == "cost $5 and $x");
  CHECK(substitute_env("${MISSING}", env).error().message ==
        "environment variable MISSING is not set");
  CHECK(substitute_env("${HOST", env).error().message ==
        "unterminated ${ at character 1 of the value (write $$ for a literal $)");
  CHECK(substitute_env("${1BAD}", env).error().message ==
        "the ${...} at character 1 of the value is not a valid environment variable reference "
        "(write $$ for a literal $)");
}

TEST_CASE("a value that is not a valid reference is never echoed: it may be a password",
          "[config]") {
  const outbox::EnvLookup env = [](const std::string&) -> std::optional<std::string> {
    return std::nullopt;
  };
  for (const std::string secret : {"s3cr${t-pass", "hunter2${oops", "pa${ss word}x"}) {
    const auto result = substitute_env(secret, env);
    REQUIRE_FALSE(result);
    INFO(result.error().message);
    CHECK(result.error().message.find("s3cr") == std::string::npos);
    CHECK(result.error().message.find("hunter2") == std::string::npos);
    CHECK(result.error().message.find("ss word") == std::string::npos);
  }
}

TEST_CASE("sizes need a unit and print in their largest exact one", "[config]") {
  using outbox::format_byte_size;
  using outbox::parse_byte_size;
  CHECK(parse_byte_size("64MiB") == 64ULL << 20);
  CHECK(parse_byte_size("900KB") == 900000);
  CHECK(parse_byte_size("1GiB") == 1ULL << 30);
  CHECK(parse_byte_size("1000B") == 1000);
  CHECK_FALSE(parse_byte_size("64"));
  CHECK_FALSE(parse_byte_size("MiB"));
  CHECK_FALSE(parse_byte_size("64 MiB"));
  CHECK_FALSE(parse_byte_size("-1MiB"));
  CHECK_FALSE(parse_byte_size("99999999999999999999GiB"));
  CHECK(format_byte_size(64ULL << 20) == "64MiB");
  CHECK(format_byte_size(1000000) == "1MB");
  CHECK(format_byte_size(1500) == "1500B");
}
