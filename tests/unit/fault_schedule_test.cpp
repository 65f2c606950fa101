// The soak's fault schedule: a seed replays exactly, every kind occurs, and no fault hits a
// target an earlier one still holds down.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>

#include "fault_schedule.hpp"

using outbox::verify::describe;
using outbox::verify::Fault;
using outbox::verify::FaultKind;
using outbox::verify::make_schedule;
using outbox::verify::ScheduleShape;

TEST_CASE("the same seed gives the same schedule, another seed another one", "[soak]") {
  const ScheduleShape shape;
  const std::vector<Fault> first = make_schedule(42, shape);
  const std::vector<Fault> again = make_schedule(42, shape);
  const std::vector<Fault> other = make_schedule(43, shape);
  REQUIRE(first.size() == 100);
  std::vector<std::string> first_text;
  std::vector<std::string> again_text;
  std::vector<std::string> other_text;
  for (size_t i = 0; i < first.size(); ++i) {
    first_text.push_back(describe(first[i]));
    again_text.push_back(describe(again[i]));
    other_text.push_back(describe(other[i]));
  }
  CHECK(first_text == again_text);
  CHECK(first_text != other_text);
}

TEST_CASE("every fault kind occurs, the restart exactly as often as asked", "[soak]") {
  for (const uint64_t seed : {1ULL, 7ULL, 20261129ULL}) {
    const std::vector<Fault> schedule = make_schedule(seed, ScheduleShape{});
    std::map<FaultKind, int> kinds;
    for (const Fault& fault : schedule)
      ++kinds[fault.kind];
    CHECK(kinds.size() == outbox::verify::fault_kinds(outbox::verify::BrokerKind::kMock).size());
    CHECK(kinds.count(FaultKind::kBrokerKill) == 0);  // the mock has no node to kill
    CHECK(kinds[FaultKind::kMariadbRestart] == 1);
    for (size_t i = 0; i < schedule.size(); ++i) {
      CHECK(schedule[i].index == static_cast<int>(i) + 1);
      if (i > 0) CHECK(schedule[i].at_s >= schedule[i - 1].at_s);
    }
  }
  ScheduleShape small;
  small.faults = 9;
  std::set<FaultKind> kinds;
  for (const Fault& fault : make_schedule(5, small))
    kinds.insert(fault.kind);
  CHECK(kinds.size() == 9);
}

TEST_CASE("on the real cluster a node is killed instead of requests failing", "[soak]") {
  using outbox::verify::BrokerKind;
  const std::vector<FaultKind> real = outbox::verify::fault_kinds(BrokerKind::kReal);
  CHECK(real.size() == outbox::verify::fault_kinds(BrokerKind::kMock).size());
  CHECK(std::count(real.begin(), real.end(), FaultKind::kBrokerKill) == 1);
  CHECK(std::count(real.begin(), real.end(), FaultKind::kBrokerRequestErrors) == 0);
  for (const uint64_t seed : {1ULL, 7ULL, 20261129ULL}) {
    ScheduleShape shape;
    shape.broker = BrokerKind::kReal;
    shape.faults = 20;
    const std::vector<Fault> schedule = make_schedule(seed, shape);
    REQUIRE(schedule.size() == 20);
    std::set<FaultKind> kinds;
    double broker_free_at = 0;
    for (const Fault& fault : schedule) {
      INFO(describe(fault));
      kinds.insert(fault.kind);
      if (fault.kind == FaultKind::kBrokerKill) {
        CHECK(fault.target >= 1);  // one node, never all three
        CHECK(fault.target <= 3);
        CHECK(describe(fault).find("broker_kill node " + std::to_string(fault.target) +
                                   ", restarted after ") != std::string::npos);
      }
      const bool broker = fault.kind == FaultKind::kBrokerKill ||
                          fault.kind == FaultKind::kBrokerDown ||
                          fault.kind == FaultKind::kLeaseShortened;
      if (broker) {
        // A killed node is back (its restart allowed for) before the next broker fault.
        CHECK(fault.at_s >= broker_free_at);
        broker_free_at =
            fault.at_s + fault.duration_s + (fault.kind == FaultKind::kBrokerKill ? 12.0 : 0.0);
      }
    }
    CHECK(kinds == std::set<FaultKind>(real.begin(), real.end()));
  }
}

TEST_CASE("no fault hits a process still down, nothing touches the database while it restarts",
          "[soak]") {
  for (uint64_t seed = 0; seed < 50; ++seed) {
    const std::vector<Fault> schedule = make_schedule(seed, ScheduleShape{});
    std::map<std::string, double> down_until;
    double restart_from = -1;
    double restart_until = -1;
    for (const Fault& fault : schedule) {
      if (fault.kind == FaultKind::kMariadbRestart) {
        restart_from = fault.at_s;
        restart_until = fault.at_s + fault.duration_s;
      }
    }
    for (const Fault& fault : schedule) {
      const bool relay =
          fault.kind == FaultKind::kRelayKill || fault.kind == FaultKind::kRelayConnectionKill;
      const bool consumer = fault.kind == FaultKind::kConsumerKill ||
                            fault.kind == FaultKind::kConsumerConnectionKill;
      if (relay || consumer) {
        const std::string target = (relay ? "relay-" : "consumer-") + std::to_string(fault.target);
        INFO(describe(fault));
        CHECK(fault.at_s >= down_until[target]);
        down_until[target] = fault.at_s + fault.duration_s;
      }
      const bool touches_database = fault.kind == FaultKind::kRelayConnectionKill ||
                                    fault.kind == FaultKind::kConsumerConnectionKill ||
                                    fault.kind == FaultKind::kWriterConnectionKill ||
                                    fault.kind == FaultKind::kLeaseShortened;
      if (touches_database) {
        INFO(describe(fault));
        CHECK_FALSE((fault.at_s >= restart_from && fault.at_s < restart_until));
      }
    }
  }
}

TEST_CASE("a fault reads as what it does", "[soak]") {
  Fault fault;
  fault.index = 12;
  fault.at_s = 14.2;
  fault.kind = FaultKind::kRelayKill;
  fault.target = 1;
  fault.duration_s = 1.75;
  CHECK(describe(fault) == "#12 t=14.20s relay_kill relay-2, restarted after 1.75s");
  fault.kind = FaultKind::kBrokerRequestErrors;
  fault.api = "Produce";
  fault.error = "NOT_LEADER_FOR_PARTITION";
  fault.count = 3;
  CHECK(describe(fault) ==
        "#12 t=14.20s broker_request_errors Produce NOT_LEADER_FOR_PARTITION x3");
  fault.kind = FaultKind::kBrokerDown;
  fault.target = 0;
  CHECK(describe(fault) == "#12 t=14.20s broker_down all brokers, up after 1.75s");
}
