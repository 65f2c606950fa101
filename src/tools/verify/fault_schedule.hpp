#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "broker_kind.hpp"

namespace outbox::verify {

// The kinds of fault the soak injects, each an outside fault on a real process or server.
enum class FaultKind {
  kRelayKill,               // kill -9 of a relay process; restarted after `duration`
  kConsumerKill,            // kill -9 of a consumer (notification-planner); restarted after
  kRelayConnectionKill,     // KILL CONNECTION of every MySQL session of one relay
  kConsumerConnectionKill,  // ... of one consumer
  kWriterConnectionKill,    // ... of one writer (outbox-loadgen): UNKNOWN commits, reconciled
  kMariadbRestart,          // the MariaDB server stopped and started again
  kBrokerRequestErrors,     // the next requests of one API fail (Produce, OffsetCommit, Fetch);
                            // the mock cluster only
  kBrokerDown,              // one broker or all of them off the network for `duration`
  kLeaseShortened,          // acks delayed (rtt), then every live lease ends now: mid-publish
  kBrokerKill,              // kill -9 of one Kafka node, restarted after `duration`; the real
                            // cluster only (the mock's brokers are threads of one process)
};
inline constexpr int kFaultKinds = 10;

// The kinds a soak against `broker` injects, in the order of the report's table: every kind but
// kBrokerKill on the mock, every kind but kBrokerRequestErrors on the real cluster.
std::vector<FaultKind> fault_kinds(BrokerKind broker);

// Whether the fault hits the broker (every node or one), not a process or the database.
bool is_broker_fault(FaultKind kind);

// "relay_kill", ...: the names the report and the table use.
const char* fault_kind_name(FaultKind kind);

struct Fault {
  int index = 0;    // 1-based, in time order
  double at_s = 0;  // seconds after the soak's start
  FaultKind kind = FaultKind::kRelayKill;
  int target = 0;  // relay/consumer/writer index (0-based); broker id (1-based; 0: all brokers)
  double duration_s = 0;  // how long the fault lasts before its heal (0: instantaneous)
  std::string api;        // kBrokerRequestErrors: Produce | OffsetCommit | Fetch
  std::string error;      // kBrokerRequestErrors: the librdkafka error name
  int count = 0;          // kBrokerRequestErrors: how many requests fail; kLeaseShortened: rtt ms
};

struct ScheduleShape {
  BrokerKind broker = BrokerKind::kMock;  // which kinds (fault_kinds)
  int faults = 100;
  int relays = 3;
  int consumers = 2;
  int writers = 2;
  int brokers = 3;
  int mariadb_restarts = 1;
  double mean_gap_s = 1.2;  // between two faults
};

// The schedule a seed gives: the same seed and shape always give the same faults, targets,
// times and durations (std::mt19937_64, no other input). Every kind of fault_kinds(broker)
// occurs at least once when there are at least as many faults (the restarts exactly
// mariadb_restarts times); a fault never hits a target still down from an earlier one (a dead
// relay is not killed again), broker faults never overlap (a killed node is back before the
// next), and nothing touches the database while it restarts.
std::vector<Fault> make_schedule(uint64_t seed, const ScheduleShape& shape);

// One line: "#12 t=14.20s relay_kill relay-2, restarted after 1.75s".
std::string describe(const Fault& fault);

// When the schedule's last fault has healed.
double schedule_end_s(const std::vector<Fault>& faults);

}  // namespace outbox::verify
