// The whole-cluster outage gate: which settled batches start an outage, and how its probes
// back off. A batch that fails whole starts one only when nothing was delivered since its
// claim and some of its failures are news (a partition not paused yet): a paused partition's
// probe failing on its own is expected, and says nothing about the rest of the cluster.
#include <catch2/catch.hpp>

#include "outage_gate.hpp"

using namespace std::chrono_literals;
using outbox::OutageGate;

namespace {

using Kind = OutageGate::Admission::Kind;

OutageGate::Settled failed_whole(size_t events, size_t on_paused, OutageGate::Clock::time_point at,
                                 bool probe = false) {
  return OutageGate::Settled{.delivered = 0,
                             .outage = events,
                             .on_paused_partitions = on_paused,
                             .outage_error = "_MSG_TIMED_OUT: Local: Message timed out on t[2]",
                             .probe = probe,
                             .claimed_at = at};
}

OutageGate::Settled delivered(size_t events, OutageGate::Clock::time_point at) {
  return OutageGate::Settled{.delivered = events,
                             .outage = 0,
                             .on_paused_partitions = 0,
                             .outage_error = {},
                             .probe = false,
                             .claimed_at = at};
}

}  // namespace

TEST_CASE("a batch of a paused partition's probes failing whole starts no outage", "[outage]") {
  OutageGate gate(OutageGate::Settings{});
  const auto start = OutageGate::Clock::now();
  // Nothing delivered since the claim; every failure on a partition paused before it settled.
  gate.settled(failed_whole(10, 10, start), start + 3s);
  CHECK_FALSE(gate.outage(start + 3s));
  CHECK(gate.outages_total() == 0);
  CHECK(gate.admit(500, start + 3s).kind == Kind::kClaim);
  // One failure on a partition not paused yet makes it news: the outage starts.
  gate.settled(failed_whole(10, 9, start + 3s), start + 6s);
  REQUIRE(gate.outage(start + 6s));
  CHECK(gate.outages_total() == 1);
}

TEST_CASE("a batch failing whole starts no outage while deliveries got through since its claim",
          "[outage]") {
  OutageGate gate(OutageGate::Settings{});
  const auto start = OutageGate::Clock::now();
  gate.settled(delivered(500, start), start + 1s);
  gate.settled(failed_whole(500, 0, start), start + 3s);
  CHECK_FALSE(gate.outage(start + 3s));
  // Claimed after the last delivery, failed whole on fresh partitions: an outage.
  gate.settled(failed_whole(500, 0, start + 2s), start + 5s);
  CHECK(gate.outage(start + 5s));
}

TEST_CASE(
    "in an outage a failed probe doubles the wait, whoever's partitions it held, and a "
    "delivery ends it",
    "[outage]") {
  OutageGate gate(OutageGate::Settings{
      .probe_events = 10, .probe_interval_initial = 1s, .probe_interval_max = 10s});
  const auto start = OutageGate::Clock::now();
  gate.settled(failed_whole(500, 0, start), start + 3s);
  REQUIRE(gate.outage(start + 3s));
  CHECK(gate.admit(500, start + 3500ms).kind == Kind::kWait);
  OutageGate::Admission probe = gate.admit(500, start + 4s);
  REQUIRE(probe.kind == Kind::kProbe);
  CHECK(probe.limit == 10);
  CHECK(gate.admit(500, start + 4s).kind == Kind::kWait);  // one probe out at a time
  // The probe's rows are all of partitions the outage paused: in an outage it still counts.
  gate.settled(failed_whole(10, 10, start + 4s, true), start + 7s);
  CHECK(gate.outage(start + 7s));
  CHECK(gate.admit(500, start + 8500ms).kind == Kind::kWait);  // 2 s now, not 1 s
  REQUIRE(gate.admit(500, start + 9s).kind == Kind::kProbe);
  gate.settled(delivered(10, start + 9s), start + 9500ms);
  CHECK_FALSE(gate.outage(start + 9500ms));
  CHECK(gate.admit(500, start + 9500ms).kind == Kind::kClaim);
}

TEST_CASE(
    "a delivery reported but not yet settled keeps a batch failing whole from starting an "
    "outage",
    "[outage]") {
  outbox::DeliveryClock reports;
  OutageGate gate(OutageGate::Settings{}, &reports);
  const auto start = OutageGate::Clock::now();
  // The same worker's next batch, claimed after this one, was confirmed 1 s after its claim;
  // it settles only after this one, which failed whole on a partition not paused yet.
  reports.delivered(start + 1s);
  gate.settled(failed_whole(500, 0, start), start + 3s);
  CHECK_FALSE(gate.outage(start + 3s));
  // Nothing confirmed since the next claim: an outage.
  gate.settled(failed_whole(500, 0, start + 2s), start + 5s);
  CHECK(gate.outage(start + 5s));
  // An older report never moves the clock back.
  reports.delivered(start);
  CHECK(reports.last() == start + 1s);
}
