#include "programs.hpp"

#include <unistd.h>

#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

namespace outbox::verify {

namespace {

// The script of the kind of server the environment's server is (OUTBOX_DB_SERVER, which both
// scripts' env files set), so a soak on MySQL restarts a MySQL of its own.
std::string local_server_script() {
  const char* server = std::getenv("OUTBOX_DB_SERVER");
  const bool mysql = server != nullptr && std::string(server) == "mysql";
  return std::string(OUTBOX_SOURCE_DIR) +
         (mysql ? "/scripts/local-mysql.sh" : "/scripts/local-mariadb.sh");
}

}  // namespace

Programs Programs::of_this_build() {
  return Programs{OUTBOX_RELAY_BIN,       OUTBOX_PLANNER_BIN,
                  OUTBOX_LOADGEN_BIN,     OUTBOX_OUTBOXCTL_BIN,
                  OUTBOX_TEST_BROKER_BIN, OUTBOX_SOURCE_DIR "/scripts/apply-migrations.sh",
                  local_server_script(),  OUTBOX_SOURCE_DIR "/scripts/kafka-cluster.sh"};
}

void Programs::use_bin_dir(const std::string& dir) {
  relay = dir + "/outbox-relay";
  planner = dir + "/notification-planner";
  loadgen = dir + "/outbox-loadgen";
  outboxctl = dir + "/outboxctl";
  test_broker = dir + "/outbox-test-broker";
}

std::optional<std::string> Programs::missing(BrokerKind broker) const {
  std::vector<std::pair<const char*, const std::string*>> all{
      {"outbox-relay", &relay},
      {"notification-planner", &planner},
      {"outbox-loadgen", &loadgen},
      {"outboxctl", &outboxctl},
      {"apply-migrations.sh", &migrations_script},
      {"local server script", &server_script}};
  if (broker == BrokerKind::kMock) {
    all.emplace_back("outbox-test-broker", &test_broker);
  } else {
    all.emplace_back("kafka-cluster.sh", &kafka_cluster_script);
  }
  for (const auto& [name, path] : all) {
    if (access(path->c_str(), X_OK) != 0) return std::string(name) + " (" + *path + ")";
  }
  return std::nullopt;
}

}  // namespace outbox::verify
