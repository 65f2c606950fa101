#pragma once

#include <yaml-cpp/yaml.h>

#include <map>
#include <string>
#include <vector>

#include "daemon_logs.hpp"
#include "harness/kafka_tools.hpp"
#include "harness/mariadb_cli.hpp"
#include "injection_report.hpp"
#include "seven_windows.hpp"

namespace outbox::verify {

// Everything a run of the seven windows leaves behind, read after every process stopped.
struct WindowsEvidence {
  std::string experiment_id;
  std::string database;  // where every state of the run can still be looked up (--keep)
  std::string broker;    // "mock" | "real" (--kafka)
  std::string ordering;  // the relays' relay.ordering (--ordering)
  YAML::Node versions;
  std::vector<InjectionReport> injections;
  std::vector<UncommittedRedelivery> redeliveries;
  std::map<std::string, bool> state_lookups;
  std::vector<std::string> planner_logs;
  std::vector<harness::KafkaRecord> topic;  // the order topic, read with kcat
  std::string shutdown_problem;             // a process that did not drain
};

// One traced event's deliveries: from the broker (kcat's copies, plus copies redelivered
// because their offset was uncommitted when the consumer died) and from the consumers' logs.
struct EventDeliveries {
  TracedOrder order;
  std::vector<std::string> copies;  // "partition@offset"
  int redelivered_uncommitted = 0;
  int applied = 0;
  int already_consumed = 0;
  int failed = 0;
  int deliveries() const { return static_cast<int>(copies.size()) + redelivered_uncommitted; }
};

std::vector<EventDeliveries> deliveries_of(const WindowsEvidence& evidence,
                                           const std::vector<HandleAttempt>& attempts);

// The seed's repeatableDeliveryVerification document, counts and invariants filled from the
// database (through the mariadb CLI), the broker (kcat) and the logs. `passed` is false when
// any injection or invariant failed.
YAML::Node build_report(const WindowsEvidence& evidence, const harness::MariadbCli& sql,
                        bool& passed);

// The YAML text of a report node.
std::string emit_yaml(const YAML::Node& document);

}  // namespace outbox::verify
