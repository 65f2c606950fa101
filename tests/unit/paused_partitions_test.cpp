// A paused partition's probes: the oldest held events, woken one probe at a time; a probe that
// fails makes the next one wait twice as long; the first delivery resumes the partition and
// hands back every event held for it.
#include <catch2/catch.hpp>

#include "operator/paused_partitions.hpp"

using namespace std::chrono_literals;
using outbox::Destination;
using outbox::PausedPartitions;

TEST_CASE("a paused partition's failed probe doubles the wait for the next one", "[paused]") {
  PausedPartitions holds(PausedPartitions::Settings{
      .probe_events = 2, .probe_interval_initial = 1s, .probe_interval_max = 10s, .recheck = 300s});
  const Destination sick{"t", 1};
  const auto start = PausedPartitions::Clock::now();
  holds.failed(sick, "_MSG_TIMED_OUT", {"e1", "e2", "e3"}, start);
  CHECK(holds.topic_paused("t"));
  CHECK(holds.verdict(sick, "e1") == PausedPartitions::Verdict::kHold);
  CHECK(holds.verdict(Destination{"t", 0}, "e9") == PausedPartitions::Verdict::kSend);

  CHECK(holds.due_probes(start + 500ms).empty());
  CHECK(holds.due_probes(start + 1s) == std::vector<std::string>{"e1", "e2"});
  // Claimed: each is sent once as the probe.
  CHECK(holds.verdict(sick, "e1") == PausedPartitions::Verdict::kProbe);
  CHECK(holds.verdict(sick, "e2") == PausedPartitions::Verdict::kProbe);
  // The woken rows may go to another relay: this one's next claims also send up to
  // probe_events of the partition's events as the probe, whichever they are; then it holds.
  CHECK(holds.verdict(sick, "e4") == PausedPartitions::Verdict::kProbe);
  CHECK(holds.verdict(sick, "e2") == PausedPartitions::Verdict::kProbe);
  CHECK(holds.verdict(sick, "e5") == PausedPartitions::Verdict::kHold);
  CHECK(holds.verdict(sick, "e1") == PausedPartitions::Verdict::kHold);

  // The probe fails: the next one comes 2 s later, not 1 s.
  holds.failed(sick, "_MSG_TIMED_OUT", {"e1", "e2"}, start + 4s);
  CHECK(holds.due_probes(start + 5s).empty());
  CHECK(holds.due_probes(start + 6s) == std::vector<std::string>{"e1", "e2"});
  CHECK(holds.verdict(sick, "e1") == PausedPartitions::Verdict::kProbe);
  CHECK(holds.verdict(sick, "e3") == PausedPartitions::Verdict::kProbe);
  // More of the partition's events failing, no probe among them, leave the interval as it is;
  // the probe failing again doubles it: the next one 4 s after that.
  holds.failed(sick, "_MSG_TIMED_OUT", {"e9"}, start + 7s);
  holds.failed(sick, "_MSG_TIMED_OUT", {"e1", "e3"}, start + 9s);
  CHECK(holds.due_probes(start + 12s).empty());
  CHECK(holds.due_probes(start + 13s).size() == 2);

  // A delivery gets through: resumed, every held event handed back to be woken.
  CHECK(holds.delivered(sick, start + 14s) == std::vector<std::string>{"e1", "e2", "e3", "e9"});
  CHECK_FALSE(holds.topic_paused("t"));
  CHECK(holds.verdict(sick, "e3") == PausedPartitions::Verdict::kSend);
  CHECK(holds.paused_per_topic() == std::map<std::string, size_t>{{"t", 0}});
  CHECK(holds.pauses_total() == 1);
}
