// The settings tables (setting_table.hpp, settings/relay_settings.cpp) are the one place a key
// of a section is written: these tests hold the example config, the reference in
// docs/configuration.md, the printout and reload to exactly the table's keys.
#include <yaml-cpp/yaml.h>
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "config/log_section.hpp"
#include "config/mysql_section.hpp"
#include "relay_config_loading.hpp"
#include "settings/kafka_section.hpp"
#include "settings/relay_config.hpp"
#include "settings/relay_settings.hpp"
#include "test_env.hpp"

namespace {

template <typename Settings>
std::set<std::string> table_keys(const outbox::SettingTable<Settings>& table) {
  std::set<std::string> keys;
  for (const auto& entry : table.entries())
    keys.insert(entry.keys.begin(), entry.keys.end());
  return keys;
}

std::set<std::string> map_keys(const YAML::Node& map) {
  std::set<std::string> keys;
  for (const auto& entry : map)
    keys.insert(entry.first.Scalar());
  return keys;
}

// The example sets some keys in comments only ("# pipelined_chains: false"): those count too.
bool example_names(const std::string& example, const std::string& key) {
  return example.find("\n  " + key + ":") != std::string::npos ||
         example.find("# " + key + ":") != std::string::npos;
}

}  // namespace

TEST_CASE("every relay and metrics key is in the example config and the reference", "[config]") {
  const std::string example =
      outbox::test::read_text_file(outbox::test::source_dir() + "/config/relay.example.yaml");
  const std::string reference =
      outbox::test::read_text_file(outbox::test::source_dir() + "/docs/configuration.md");
  REQUIRE_FALSE(example.empty());
  REQUIRE_FALSE(reference.empty());
  for (const auto& [section, keys] :
       {std::pair{std::string("relay"), table_keys(outbox::relay_keys())},
        std::pair{std::string("metrics"), table_keys(outbox::metrics_keys())},
        std::pair{std::string("log"), table_keys(outbox::log_keys())},
        std::pair{std::string("retention"), table_keys(outbox::retention_keys())},
        std::pair{std::string("outboxctl"), table_keys(outbox::outboxctl_keys())}}) {
    REQUIRE(keys.size() >= 3);
    for (const std::string& key : keys) {
      INFO(section << "." << key);
      CHECK(example_names(example, key));
      CHECK(reference.find("`" + section + "." + key + "`") != std::string::npos);
    }
    // And nothing the example sets in the section is missing from the table.
    const YAML::Node parsed = YAML::Load(example);
    for (const std::string& key : map_keys(parsed[section])) {
      INFO("example sets " << section << "." << key);
      CHECK(keys.count(key) == 1);
    }
  }
}

TEST_CASE("the printout holds exactly the table's keys and the live ones are the table's",
          "[config]") {
  const outbox::test::LoadedConfig loaded =
      outbox::test::load_relay_config_text(outbox::test::kMinimalRelayConfig);
  REQUIRE(loaded.config);
  const YAML::Node printed = YAML::Load(outbox::print_relay_config(*loaded.config));
  CHECK(map_keys(printed["relay"]) == table_keys(outbox::relay_keys()));
  CHECK(map_keys(printed["metrics"]) == table_keys(outbox::metrics_keys()));
  CHECK(map_keys(printed["log"]) == table_keys(outbox::log_keys()));
  CHECK(map_keys(printed["retention"]) == table_keys(outbox::retention_keys()));
  CHECK(map_keys(printed["outboxctl"]) == table_keys(outbox::outboxctl_keys()));
  // Every key the mysql and kafka sections print is one of their tables' (mysql.table is the
  // relay's own, read beside the shared section).
  std::set<std::string> mysql =
      table_keys(outbox::mysql_keys(outbox::PasswordFileRead::kWithTheFile));
  mysql.insert("table");
  for (const std::string& key : map_keys(printed["mysql"])) {
    INFO("mysql." << key);
    CHECK(mysql.count(key) == 1);
  }
  for (const std::string& key : map_keys(printed["kafka"])) {
    INFO("kafka." << key);
    CHECK(table_keys(outbox::kafka_keys()).count(key) == 1);
  }
  const std::vector<std::string> live = outbox::relay_keys().live_keys("relay.");
  CHECK(std::set<std::string>(live.begin(), live.end()) ==
        std::set<std::string>{"relay.batch_size", "relay.poll_interval", "relay.poll_interval_max",
                              "relay.max_events_per_second"});
  // The defaults the policy structs take are the table's.
  CHECK(outbox::relay_defaults().lease == loaded.config->relay.lease);
  CHECK(outbox::relay_defaults().max_attempts == loaded.config->relay.max_attempts);
}
