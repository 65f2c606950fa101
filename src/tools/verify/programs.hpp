#pragma once

#include <optional>
#include <string>

#include "broker_kind.hpp"

namespace outbox::verify {

// The programs the verifier runs as the chain (each one a real process: faults hit processes,
// not functions) and the scripts it uses to set up and restart servers.
struct Programs {
  std::string relay;              // outbox-relay
  std::string planner;            // notification-planner (the consumer)
  std::string loadgen;            // outbox-loadgen (the writer)
  std::string outboxctl;          // lookups by stable id, as an operator runs them
  std::string test_broker;        // outbox-test-broker (librdkafka's mock cluster)
  std::string migrations_script;  // scripts/apply-migrations.sh
  // scripts/local-mariadb.sh, or local-mysql.sh when OUTBOX_DB_SERVER=mysql (what
  // local-mysql.sh's env file says): the server of the soak's own, of the kind under test.
  std::string server_script;
  // scripts/kafka-cluster.sh (the real Kafka cluster of --kafka real); it fetches the broker
  // into the .local/ of the tree it lives in
  std::string kafka_cluster_script;

  // The binaries and scripts of the build tree this verifier was built in.
  static Programs of_this_build();
  // Takes the binaries from `dir` instead (an install, another build); the scripts stay.
  void use_bin_dir(const std::string& dir);
  // The first program or script a run against `broker` needs that is not an executable file,
  // named (the test broker only for the mock, the cluster script only for the real one).
  std::optional<std::string> missing(BrokerKind broker) const;
};

}  // namespace outbox::verify
