#include "planner_scenarios.hpp"

#include <signal.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <deque>
#include <iostream>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>

#include "daemon_logs.hpp"
#include "planner_process.hpp"
#include "poll.hpp"
#include "relay_process.hpp"
#include "test_database.hpp"
#include "test_kafka.hpp"
#include "topic_checks.hpp"

namespace outbox::test {
namespace {

using namespace std::chrono_literals;
using verify::HandleAttempt;
using verify::HandleOutcome;

const std::string kGroup = "notification-planner";

// The partitions a planner owns now, by its log: "assigned N partitions: outbox.order/0, ..."
// adds them, "revoked N partitions: ..." takes them away (eager and cooperative protocols
// alike: the log says what the group coordinator handed out).
std::set<int> owned_partitions(const std::string& log) {
  std::set<int> owned;
  std::istringstream lines(log);
  for (std::string line; std::getline(lines, line);) {
    const bool assigned = line.find("] assigned ") != std::string::npos;
    const bool revoked = line.find("] revoked ") != std::string::npos;
    const size_t list = line.find(" partitions: ");
    if ((!assigned && !revoked) || list == std::string::npos) continue;
    std::istringstream items(line.substr(list + 13));
    for (std::string item; std::getline(items, item, ',');) {
      const size_t slash = item.rfind('/');
      if (slash == std::string::npos) continue;  // "none"
      const int partition = std::stoi(item.substr(slash + 1));
      if (assigned) {
        owned.insert(partition);
      } else {
        owned.erase(partition);
      }
    }
  }
  return owned;
}

// One notification-planner process of the group: a restart is a new member.
struct Member {
  std::string name;  // "planner-2.1": slot 2, first incarnation
  std::unique_ptr<PlannerProcess> process;
  bool killed = false;

  std::string log() const { return process->log(); }
  int applied() const { return process->count(": applied, acknowledged"); }
};

// For each partition the member owned last (its final assignment in its log), the highest
// offset it logged a verdict for; a partition it logged nothing on is absent.
std::map<int, long long> last_logged_offsets(const Member& member) {
  const std::string log = member.log();
  const std::set<int> owned = owned_partitions(log);
  std::map<int, long long> last;
  for (const HandleAttempt& attempt : verify::planner_attempts(log, member.name)) {
    if (owned.count(attempt.partition) != 0)
      last[attempt.partition] = std::max(last[attempt.partition], attempt.offset);
  }
  return last;
}

// What every member's log says it did with each delivery.
struct GroupTally {
  long long deliveries = 0;  // applied + already consumed
  long long applied = 0;
  long long already_consumed = 0;
  long long failed = 0;
  long long dead_lettered = 0;
  // Already-consumed verdicts for a copy that a killed member had applied and not acknowledged.
  long long redelivered_after_kill = 0;
  // Already-consumed verdicts for the one event a killed member was applying when it died: its
  // transaction committed, and the kill came before the log line that says so. At most one per
  // killed member (it applies one event at a time), on a partition it owned, past the last
  // offset it logged there; the database then holds that event's one effect.
  long long applied_unlogged_by_killed = 0;
  // Already-consumed verdicts with no earlier apply of that copy that either of the above
  // explains (must be none: the topic holds one copy per event, so every duplicate is a
  // redelivery).
  long long unexplained = 0;
  std::set<std::string> event_ids;
  std::map<std::string, long long> applied_by;  // member name -> applies
};

GroupTally tally_group(const std::deque<Member>& members) {
  std::vector<HandleAttempt> attempts;
  std::set<std::string> killed;
  // Per killed member still owed its in-doubt event: partition -> last offset it logged there
  // (-1: none), for every partition it owned when it died.
  std::map<std::string, std::map<int, long long>> in_doubt;
  for (const Member& member : members) {
    std::vector<HandleAttempt> own = verify::planner_attempts(member.log(), member.name);
    if (member.killed) {
      killed.insert(member.name);
      std::map<int, long long>& last_logged = in_doubt[member.name];
      for (const int partition : owned_partitions(member.log()))
        last_logged[partition] = -1;
      for (const auto& [partition, offset] : last_logged_offsets(member))
        last_logged[partition] = offset;
    }
    attempts.insert(attempts.end(), own.begin(), own.end());
  }
  // Whether a killed member may have applied this copy unlogged; uses up its one such event.
  const auto died_applying = [&](const HandleAttempt& attempt) {
    for (auto it = in_doubt.begin(); it != in_doubt.end(); ++it) {
      const auto partition = it->second.find(attempt.partition);
      if (partition != it->second.end() && attempt.offset > partition->second) {
        in_doubt.erase(it);
        return true;
      }
    }
    return false;
  };
  std::stable_sort(
      attempts.begin(), attempts.end(),
      [](const HandleAttempt& a, const HandleAttempt& b) { return a.at_us < b.at_us; });
  GroupTally tally;
  std::map<std::string, std::string> applier;  // "event@partition@offset" -> member
  for (const HandleAttempt& attempt : attempts) {
    const std::string copy = attempt.event_id + "@" + std::to_string(attempt.partition) + "@" +
                             std::to_string(attempt.offset);
    switch (attempt.outcome) {
      case HandleOutcome::kApplied:
        ++tally.applied;
        ++tally.deliveries;
        ++tally.applied_by[attempt.process];
        applier[copy] = attempt.process;
        tally.event_ids.insert(attempt.event_id);
        break;
      case HandleOutcome::kAlreadyConsumed: {
        ++tally.already_consumed;
        ++tally.deliveries;
        tally.event_ids.insert(attempt.event_id);
        const auto found = applier.find(copy);
        if (found == applier.end()) {
          ++(died_applying(attempt) ? tally.applied_unlogged_by_killed : tally.unexplained);
        } else if (killed.count(found->second) != 0) {
          ++tally.redelivered_after_kill;
        }
        break;
      }
      case HandleOutcome::kFailed:
        ++tally.failed;
        break;
      case HandleOutcome::kDeadLettered:
        ++tally.dead_lettered;
        break;
    }
  }
  return tally;
}

std::map<int, long long> end_offsets(const std::vector<harness::KafkaRecord>& records) {
  std::map<int, long long> end;
  for (const harness::KafkaRecord& record : records)
    end[record.partition] = std::max(end[record.partition], record.offset + 1);
  return end;
}

}  // namespace

void run_two_planners_in_one_group(const std::string& bootstrap, const std::string& broker_name,
                                   const PlannerGroupScenario& scenario) {
  const int events = scenario.events;
  const int partitions = scenario.partitions;
  TestDatabase db;
  db.insert_order_accepted_events(events, "group");
  const auto jobs = [&] { return db.count_rows("notification_job"); };

  std::deque<Member> members;  // every incarnation, in start order (a deque: stable references)
  const auto start = [&](const std::string& name) -> Member& {
    members.push_back(
        Member{name, std::make_unique<PlannerProcess>(db, bootstrap, PlannerTestConfig{}), false});
    return members.back();
  };
  Member* first = &start("planner-1.1");
  Member* second = &start("planner-2.1");
  // Both members own their half before anything is published.
  REQUIRE(eventually([&] {
    return owned_partitions(first->log()).size() == static_cast<size_t>(partitions / 2) &&
           owned_partitions(second->log()).size() ==
               static_cast<size_t>(partitions - partitions / 2);
  }));
  const auto started = std::chrono::steady_clock::now();
  RelayTestConfig relay_settings;
  relay_settings.instance_id = "group-relay";
  RelayProcess relay(db, bootstrap, relay_settings);

  int kills = 0;
  long long redelivered = 0;
  const int stride = std::max(100, events / 10);
  while (scenario.kill_and_restart_one && kills < 3 && redelivered == 0) {
    // Mid-run: the victim is applying events at this moment.
    REQUIRE(eventually([&] { return second->applied() >= stride || jobs() == events; }));
    INFO(second->name << " applied " << second->applied() << " before the kill");
    REQUIRE(second->applied() >= stride);
    // Its partitions and the last offset it handled on each, as it dies.
    second->process->process().signal(SIGKILL);
    REQUIRE(second->process->process().wait_exit(10s) == 128 + SIGKILL);
    second->killed = true;
    ++kills;
    const std::map<int, long long> last_handled = last_logged_offsets(*second);
    // The coordinator notices the death (session timeout) and hands every partition to the
    // first planner: a rebalance of the real group.
    REQUIRE(eventually(
        [&] { return owned_partitions(first->log()).size() == static_cast<size_t>(partitions); }));
    // The first planner is past every offset the dead one handled: whatever the dead one
    // applied without its offset commit landing has been delivered again by now.
    REQUIRE(eventually(
        [&] {
          const auto committed = committed_offsets(bootstrap, kGroup, kOrderTopic, partitions);
          return std::all_of(last_handled.begin(), last_handled.end(), [&](const auto& handled) {
            return committed.at(handled.first) > handled.second;
          });
        },
        120s, 200ms));
    redelivered = first->process->count("(duplicate delivery)");
    // Restarted: a new member joins and the coordinator splits the partitions again.
    second = &start("planner-2." + std::to_string(kills + 1));
    REQUIRE(eventually([&] { return !owned_partitions(second->log()).empty(); }));
  }

  REQUIRE(eventually([&] { return jobs() == events; }));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const std::vector<harness::KafkaRecord> records = read_topic(bootstrap, kOrderTopic);
  const std::map<int, long long> end = end_offsets(records);
  // The group's committed offsets at the end of the log, asked of the coordinator by a client
  // outside the group.
  std::map<int, long long> committed;
  REQUIRE(eventually(
      [&] {
        committed = committed_offsets(bootstrap, kGroup, kOrderTopic, partitions);
        return std::all_of(end.begin(), end.end(), [&](const auto& partition_end) {
          return committed.at(partition_end.first) == partition_end.second;
        });
      },
      120s, 200ms));
  stop_gracefully(relay);
  for (Member& member : members) {
    if (!member.killed) member.process->stop_gracefully();
  }

  // The relay published every event once: each repeated delivery is the broker's redelivery.
  const TopicTally topic = tally(records);
  INFO("duplicated on the topic: " << topic.duplicated_ids());
  CHECK(topic.records == static_cast<size_t>(events));
  CHECK(topic.deliveries.size() == static_cast<size_t>(events));
  CHECK(end.size() == static_cast<size_t>(partitions));  // every partition had events

  // One local effect per event, read with the mariadb CLI.
  CHECK(db.count_rows("consumed_event") == events);
  CHECK(db.count_rows("consumed_event", "consumer_name = 'notification-planner'") == events);
  CHECK(jobs() == events);
  CHECK(db.count_rows("notification_job j JOIN outbox_event e ON e.event_id = j.event_id",
                      "j.order_id = CAST(e.aggregate_id AS SIGNED) AND j.source_version = 1 AND "
                      "j.status = 'PENDING'") == events);

  // What the planners did with each delivery, from their logs.
  const GroupTally group = tally_group(members);
  INFO("applied unlogged by a killed member: " << group.applied_unlogged_by_killed);
  // Each event applied exactly once (the database says so above; one killed mid-apply may have
  // committed without its log line)...
  CHECK(group.applied + group.applied_unlogged_by_killed == events);
  CHECK(group.applied_unlogged_by_killed <= kills);
  CHECK(group.event_ids.size() == static_cast<size_t>(events));
  // ...and every other delivery deduplicated.
  CHECK(group.deliveries + group.applied_unlogged_by_killed == events + group.already_consumed);
  CHECK(group.unexplained == 0);
  CHECK(group.failed == 0);
  CHECK(group.dead_lettered == 0);
  const auto applied_by = [&](const std::string& name) {
    const auto found = group.applied_by.find(name);
    return found == group.applied_by.end() ? 0LL : found->second;
  };
  CHECK(applied_by(first->name) > 0);  // both took part
  CHECK(applied_by("planner-2.1") > 0);
  if (scenario.kill_and_restart_one) {
    // The duplicate path ran: events the killed planner applied without its offset commit
    // landing were delivered again, recognised as already consumed, and took no second effect.
    CHECK(group.redelivered_after_kill >= 1);
    CHECK(group.already_consumed ==
          group.redelivered_after_kill + group.applied_unlogged_by_killed);
  } else {
    CHECK(group.already_consumed == 0);
  }
  // Acknowledgements are committed together (consumer.commit_interval), never one request per
  // message; the committed offsets above show that none was lost.
  long long commit_requests = 0;
  for (Member& member : members) {
    if (member.killed) continue;
    static const std::regex kCommits("drained: .* offset_commits=(\\d+)");
    const std::string log = member.process->log();
    std::smatch match;
    REQUIRE(std::regex_search(log, match, kCommits));
    commit_requests += std::stoll(match[1]);
  }
  CHECK(commit_requests * 10 < group.applied);
  std::cout << "[figures] consumer group on the " << broker_name << ": " << events << " events on "
            << partitions << " partitions, 2 notification-planner processes, " << kills
            << " kill -9 + restart of one (" << members.size() << " members in all); "
            << group.deliveries << " deliveries, " << group.event_ids.size() << " distinct ids, "
            << group.applied << " applied, " << group.already_consumed
            << " redeliveries recognised as already consumed (" << group.redelivered_after_kill
            << " of events the killed planner had applied, " << group.applied_unlogged_by_killed
            << " of the event it was applying as it died), " << jobs() << " notification jobs, "
            << db.count_rows("consumed_event") << " consumed_event rows, committed offsets at the "
            << "end of all " << end.size() << " partitions; " << seconds
            << " s from relay start to the last job; " << commit_requests
            << " offset commit requests by the members that drained\n";
}

}  // namespace outbox::test
