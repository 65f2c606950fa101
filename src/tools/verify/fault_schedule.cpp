#include "fault_schedule.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <random>

namespace outbox::verify {
namespace {

// The time a MariaDB restart keeps the database away, for scheduling only (the real one is
// whatever the server takes).
constexpr double kRestartBusyS = 8.0;
// The time a killed Kafka node takes to start again and rejoin (a JVM start, its logs
// recovered), for scheduling only: no other broker fault lands meanwhile.
constexpr double kNodeRestartBusyS = 12.0;

struct Draw {
  std::mt19937_64 random;
  double uniform(double low, double high) {
    return std::uniform_real_distribution<double>(low, high)(random);
  }
  int below(int n) {
    return static_cast<int>(std::uniform_int_distribution<int>(0, n - 1)(random));
  }
};

// The resource a fault occupies until its heal: one slot per relay, consumer, writer, plus
// the broker and the database.
std::string resource(FaultKind kind, int target) {
  switch (kind) {
    case FaultKind::kRelayKill:
    case FaultKind::kRelayConnectionKill:
      return "relay-" + std::to_string(target);
    case FaultKind::kConsumerKill:
    case FaultKind::kConsumerConnectionKill:
      return "consumer-" + std::to_string(target);
    case FaultKind::kWriterConnectionKill:
      return "writer-" + std::to_string(target);
    case FaultKind::kMariadbRestart:
      return "database";
    case FaultKind::kBrokerRequestErrors:
    case FaultKind::kBrokerDown:
    case FaultKind::kLeaseShortened:
    case FaultKind::kBrokerKill:
      return "broker";
  }
  return "?";
}

bool touches_database(FaultKind kind) {
  return kind == FaultKind::kRelayConnectionKill || kind == FaultKind::kConsumerConnectionKill ||
         kind == FaultKind::kWriterConnectionKill || kind == FaultKind::kLeaseShortened ||
         kind == FaultKind::kMariadbRestart;
}

int targets_of(FaultKind kind, const ScheduleShape& shape) {
  switch (kind) {
    case FaultKind::kRelayKill:
    case FaultKind::kRelayConnectionKill:
      return shape.relays;
    case FaultKind::kConsumerKill:
    case FaultKind::kConsumerConnectionKill:
      return shape.consumers;
    case FaultKind::kWriterConnectionKill:
      return shape.writers;
    default:
      return 1;
  }
}

// Which kinds, how often: one of each first (when there is room), the restarts exactly as
// asked, the rest by weight (processes and connections more often than the broker).
// The mock's list is the one seeds were first replayed with: a seed gives the same mock schedule
// as before the real cluster's kinds existed. The real cluster takes node kills where the mock
// takes request errors, less often: a node's restart takes seconds.
std::vector<std::pair<FaultKind, int>> kind_weights(BrokerKind broker) {
  std::vector<std::pair<FaultKind, int>> weights{{FaultKind::kRelayKill, 4},
                                                 {FaultKind::kConsumerKill, 3},
                                                 {FaultKind::kRelayConnectionKill, 3},
                                                 {FaultKind::kConsumerConnectionKill, 3},
                                                 {FaultKind::kWriterConnectionKill, 2},
                                                 {FaultKind::kBrokerRequestErrors, 3},
                                                 {FaultKind::kBrokerDown, 2},
                                                 {FaultKind::kLeaseShortened, 2}};
  if (broker == BrokerKind::kReal) {
    for (auto& [kind, weight] : weights) {
      if (kind == FaultKind::kBrokerRequestErrors) {
        kind = FaultKind::kBrokerKill;
        weight = 2;
      }
    }
  }
  return weights;
}

std::vector<FaultKind> kinds_to_inject(Draw& draw, const ScheduleShape& shape) {
  std::vector<FaultKind> kinds;
  const std::vector<std::pair<FaultKind, int>> weights = kind_weights(shape.broker);
  const int restarts = std::min(shape.mariadb_restarts, shape.faults);
  kinds.reserve(static_cast<size_t>(std::max(shape.faults, 0)));
  for (int i = 0; i < restarts; ++i)
    kinds.push_back(FaultKind::kMariadbRestart);
  for (const auto& [kind, weight] : weights) {
    if (static_cast<int>(kinds.size()) < shape.faults) kinds.push_back(kind);
  }
  int total = 0;
  for (const auto& [kind, weight] : weights)
    total += weight;
  while (static_cast<int>(kinds.size()) < shape.faults) {
    int pick = draw.below(total);
    for (const auto& [kind, weight] : weights) {
      if (pick < weight) {
        kinds.push_back(kind);
        break;
      }
      pick -= weight;
    }
  }
  std::shuffle(kinds.begin(), kinds.end(), draw.random);
  return kinds;
}

void choose_details(Fault& fault, Draw& draw, const ScheduleShape& shape) {
  switch (fault.kind) {
    case FaultKind::kRelayKill:
    case FaultKind::kConsumerKill:
      fault.duration_s = draw.uniform(0.5, 3.0);  // until the restart
      break;
    case FaultKind::kBrokerDown:
      fault.target = draw.below(shape.brokers + 1);  // 0: all of them
      fault.duration_s = draw.uniform(1.0, 4.0);
      break;
    case FaultKind::kBrokerRequestErrors: {
      static const std::vector<std::pair<const char*, const char*>> kErrors{
          {"Produce", "NOT_LEADER_FOR_PARTITION"}, {"Produce", "REQUEST_TIMED_OUT"},
          {"Produce", "NOT_ENOUGH_REPLICAS"},      {"OffsetCommit", "COORDINATOR_NOT_AVAILABLE"},
          {"OffsetCommit", "REQUEST_TIMED_OUT"},   {"Fetch", "NOT_LEADER_FOR_PARTITION"}};
      const auto& [api, error] = kErrors[static_cast<size_t>(draw.below(6))];
      fault.api = api;
      fault.error = error;
      fault.count = 2 + draw.below(7);
      fault.duration_s = 2.0;  // then whatever was not consumed is cleared
      break;
    }
    case FaultKind::kLeaseShortened:
      fault.count = 800 + 100 * draw.below(13);  // ack delay (rtt), ms
      fault.duration_s = 3.0;
      break;
    case FaultKind::kMariadbRestart:
      fault.duration_s = kRestartBusyS;
      break;
    case FaultKind::kBrokerKill:
      fault.target = 1 + draw.below(shape.brokers);  // a node: never all of them
      fault.duration_s = draw.uniform(1.0, 3.0);     // until its restart begins
      break;
    default:
      break;
  }
}

// How long a fault keeps its resource: until its heal, and for a node until it is back.
double busy_for(const Fault& fault) {
  return fault.duration_s + (fault.kind == FaultKind::kBrokerKill ? kNodeRestartBusyS : 0.0);
}

}  // namespace

bool is_broker_fault(FaultKind kind) {
  return resource(kind, 0) == "broker";
}

const char* fault_kind_name(FaultKind kind) {
  switch (kind) {
    case FaultKind::kRelayKill:
      return "relay_kill";
    case FaultKind::kConsumerKill:
      return "consumer_kill";
    case FaultKind::kRelayConnectionKill:
      return "relay_connection_kill";
    case FaultKind::kConsumerConnectionKill:
      return "consumer_connection_kill";
    case FaultKind::kWriterConnectionKill:
      return "writer_connection_kill";
    case FaultKind::kMariadbRestart:
      return "mariadb_restart";
    case FaultKind::kBrokerRequestErrors:
      return "broker_request_errors";
    case FaultKind::kBrokerDown:
      return "broker_down";
    case FaultKind::kLeaseShortened:
      return "lease_shortened";
    case FaultKind::kBrokerKill:
      return "broker_kill";
  }
  return "?";
}

std::vector<FaultKind> fault_kinds(BrokerKind broker) {
  std::vector<FaultKind> kinds;
  for (int kind = 0; kind < kFaultKinds; ++kind) {
    const auto fault = static_cast<FaultKind>(kind);
    const bool mock_only = fault == FaultKind::kBrokerRequestErrors;
    const bool real_only = fault == FaultKind::kBrokerKill;
    if (broker == BrokerKind::kMock ? !real_only : !mock_only) kinds.push_back(fault);
  }
  return kinds;
}

std::vector<Fault> make_schedule(uint64_t seed, const ScheduleShape& shape) {
  Draw draw{std::mt19937_64(seed)};
  const std::vector<FaultKind> kinds = kinds_to_inject(draw, shape);
  std::map<std::string, double> busy_until;
  double database_back = 0;
  double now = 2.0;  // let the chain start first
  std::vector<Fault> faults;
  for (const FaultKind kind : kinds) {
    now += draw.uniform(0.4 * shape.mean_gap_s, 1.6 * shape.mean_gap_s);
    Fault fault;
    fault.kind = kind;
    fault.target = draw.below(targets_of(kind, shape));
    choose_details(fault, draw, shape);
    // A free target of this kind, else wait for the earliest one to heal.
    const int targets = targets_of(kind, shape);
    double start = now;
    int best = fault.target;
    double best_free = busy_until[resource(kind, fault.target)];
    for (int i = 0; i < targets && best_free > start; ++i) {
      const int candidate = (fault.target + i) % targets;
      const double free_at = busy_until[resource(kind, candidate)];
      if (free_at < best_free) {
        best = candidate;
        best_free = free_at;
      }
    }
    // Broker faults share one resource: their target (a node, or all) stays as drawn.
    fault.target = targets > 1 ? best : fault.target;
    start = std::max(start, best_free);
    if (touches_database(kind)) start = std::max(start, database_back);
    if (kind == FaultKind::kMariadbRestart) {
      // Nothing else may still be holding the database when it goes away.
      for (const auto& [name, until] : busy_until)
        start = std::max(start, until);
    }
    fault.at_s = start;
    now = start;
    busy_until[resource(kind, fault.target)] = start + busy_for(fault);
    if (kind == FaultKind::kMariadbRestart) database_back = start + fault.duration_s;
    faults.push_back(fault);
  }
  std::stable_sort(faults.begin(), faults.end(),
                   [](const Fault& a, const Fault& b) { return a.at_s < b.at_s; });
  for (size_t i = 0; i < faults.size(); ++i)
    faults[i].index = static_cast<int>(i) + 1;
  return faults;
}

std::string describe(const Fault& fault) {
  char time[32];
  std::snprintf(time, sizeof(time), "t=%.2fs", fault.at_s);
  char duration[32];
  std::snprintf(duration, sizeof(duration), "%.2fs", fault.duration_s);
  // Built by appending: `"#" + std::string&&` trips GCC 12's false -Wrestrict at -O2 and
  // above (GCC PR 105651).
  std::string text = "#";
  text += std::to_string(fault.index) + " " + time + " " + fault_kind_name(fault.kind) + " ";
  switch (fault.kind) {
    case FaultKind::kRelayKill:
      return text + "relay-" + std::to_string(fault.target + 1) + ", restarted after " + duration;
    case FaultKind::kConsumerKill:
      return text + "consumer-" + std::to_string(fault.target + 1) + ", restarted after " +
             duration;
    case FaultKind::kRelayConnectionKill:
      return text + "relay-" + std::to_string(fault.target + 1);
    case FaultKind::kConsumerConnectionKill:
      return text + "consumer-" + std::to_string(fault.target + 1);
    case FaultKind::kWriterConnectionKill:
      return text + "writer-" + std::to_string(fault.target + 1);
    case FaultKind::kMariadbRestart:
      return text + "(stop, start)";
    case FaultKind::kBrokerRequestErrors:
      return text + fault.api + " " + fault.error + " x" + std::to_string(fault.count);
    case FaultKind::kBrokerDown:
      return text +
             (fault.target == 0 ? std::string("all brokers")
                                : "broker " + std::to_string(fault.target)) +
             ", up after " + duration;
    case FaultKind::kLeaseShortened:
      return text + "acks delayed " + std::to_string(fault.count) +
             "ms, every live lease ended, for " + duration;
    case FaultKind::kBrokerKill:
      return text + "node " + std::to_string(fault.target) + ", restarted after " + duration;
  }
  return text;
}

double schedule_end_s(const std::vector<Fault>& faults) {
  double end = 0;
  for (const Fault& fault : faults)
    end = std::max(end, fault.at_s + fault.duration_s);
  return end;
}

}  // namespace outbox::verify
