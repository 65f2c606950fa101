#include "ordering_command.hpp"

#include <spdlog/spdlog.h>

#include <chrono>
#include <regex>
#include <sstream>
#include <thread>

#include "chain.hpp"
#include "harness/poll.hpp"
#include "harness/sequence_rows.hpp"
#include "harness/version_order.hpp"
#include "own_chain.hpp"
#include "run_setup.hpp"
#include "soak_run.hpp"
#include "verification_report.hpp"
#include "versions.hpp"

namespace outbox::verify {
namespace {

using std::chrono::steady_clock;

// How long a drain may stand still before the run gives up (a hang guard, not a speed bound:
// the longest outage injected is a node's restart).
constexpr std::chrono::minutes kStalled{3};
// Between two steps of the live part (a version of every aggregate, a fault).
constexpr std::chrono::milliseconds kStep{1000};

// Versions `first`..`last` of every aggregate, committed in one statement in version order
// (created_at grows with the version), as writers commit an aggregate's versions: in order.
// Ids are made here ("ord-<version>-<aggregate>"), never taken from outside;
// harness::sequence_rows gives the rows.
std::string insert_versions(int aggregates, int first, int last) {
  const long long from = static_cast<long long>(first - 1) * aggregates + 1;
  const long long to = static_cast<long long>(last) * aggregates;
  std::ostringstream sql;
  sql << "INSERT INTO outbox_event (event_id, aggregate_type, aggregate_id, event_type, "
         "event_version, payload, status, created_at) "
      << "SELECT CONCAT('ord-', (seq - 1) DIV " << aggregates << " + 1, '-', (seq - 1) % "
      << aggregates << "), 'order', CONCAT('ordered-', (seq - 1) % " << aggregates
      << "), 'ORDER_CHANGED', (seq - 1) DIV " << aggregates
      << " + 1, JSON_OBJECT('seq', seq), 'PENDING', CURRENT_TIMESTAMP(6) + INTERVAL seq "
         "MICROSECOND FROM "
      << harness::sequence_rows(from, to) << " ORDER BY seq";
  return sql.str();
}

// What a relay said in its "drained:" line (the ordering figures of a relay that exited on its
// own; a killed one says nothing).
struct DrainedFigures {
  long long chained = 0;
  long long pipelined_batches = 0;
  long long inversions = 0;
};

DrainedFigures drained_figures(const std::string& log) {
  static const std::regex kDrained(
      R"(drained: \d+ events published, \d+ released, \d+ leases lost, (\d+) chained, (\d+) pipelined batches, (\d+) order inversions)");
  DrainedFigures figures;
  std::smatch match;
  if (std::regex_search(log, match, kDrained)) {
    figures.chained = std::stoll(match[1]);
    figures.pipelined_batches = std::stoll(match[2]);
    figures.inversions = std::stoll(match[3]);
  }
  return figures;
}

class OrderingRun {
 public:
  OrderingRun(Chain& chain, const OrderingCommand& command) : chain_(chain), command_(command) {}

  // Writes, publishes and faults; returns what kept the run from finishing (empty: finished).
  std::string run() {
    const int backlog = command_.versions / 2;
    chain_.sql().exec(insert_versions(command_.aggregates, 1, backlog));
    for (int i = 0; i < command_.relays; ++i)
      start_relay(i);
    // The first fault hits relays in the middle of the backlog, holding leases and sends.
    if (!harness::eventually([&] { return published_count() > 0; }, kStalled)) {
      return "nothing was PUBLISHED within " + std::to_string(kStalled.count()) + " minutes";
    }
    // The rest of the versions while the relays run, one version of every aggregate at a time,
    // with the faults spread between them.
    const int live = command_.versions - backlog;
    const int steps = std::max(live, command_.faults);
    for (int step = 0; step < steps; ++step) {
      if (step < live) {
        const int version = backlog + 1 + step;
        chain_.sql().exec(insert_versions(command_.aggregates, version, version));
      }
      if (step < command_.faults) inject(step);
      std::this_thread::sleep_for(kStep);
    }
    heal();
    const long long events = static_cast<long long>(command_.aggregates) * command_.versions;
    // One count per look, shared by the two questions the wait asks.
    long long published = 0;
    const bool all_published = harness::eventually_while_progressing(
        [&] {
          published = published_count();
          return published == events;
        },
        [&] { return published; }, kStalled);
    std::string problem;
    if (!all_published) {
      problem = "only " + std::to_string(published) + " of " + std::to_string(events) +
                " events PUBLISHED, none for " + std::to_string(kStalled.count()) + " minutes";
    }
    for (Slot& slot : slots_) {
      const std::optional<int> status = slot.process->stop(std::chrono::seconds(60));
      if (status != 0 && problem.empty()) {
        problem = slot.name + " did not drain (exit " +
                  (status ? std::to_string(*status) : std::string("none within 60 s")) + ")";
      }
      logs_.push_back(slot.process->log());
      const DrainedFigures figures = drained_figures(logs_.back());
      chained_ += figures.chained;
      pipelined_batches_ += figures.pipelined_batches;
      relay_inversions_ += figures.inversions;
    }
    inversion_lines_ = lines_with("was acknowledged although an earlier version");
    pipelined_lines_ = lines_with("pipelined batch settled:");
    transaction_lines_ = lines_with("transaction committed:");
    return problem;
  }

  int relay_kills() const { return relay_kills_; }
  int broker_faults() const { return broker_faults_; }
  long long chained() const { return chained_; }
  long long pipelined_batches() const { return pipelined_batches_; }
  long long relay_inversions() const { return relay_inversions_; }
  // Lines in every incarnation's log (killed ones too), counted once when run() ends:
  // versions a relay saw acknowledged behind one that was not; batches sent all at once on a
  // gapless producer, and Kafka transactions committed (relay.ordering transactional), one
  // debug line each at the level the harness's relays log at.
  long long inversion_lines() const { return inversion_lines_; }
  long long pipelined_lines() const { return pipelined_lines_; }
  long long transaction_lines() const { return transaction_lines_; }

 private:
  struct Slot {
    std::string name;
    std::unique_ptr<harness::DaemonProcess> process;
    int incarnations = 0;
  };

  long long lines_with(const std::string& text) const {
    long long lines = 0;
    for (const std::string& log : logs_)
      lines += harness::count_occurrences(log, text);
    return lines;
  }

  void start_relay(size_t index) {
    if (slots_.size() <= index) slots_.resize(index + 1);
    Slot& slot = slots_[index];
    ++slot.incarnations;
    slot.name = "relay-" + std::to_string(index + 1) + "." + std::to_string(slot.incarnations);
    const std::string instance =
        "ordering-r" + std::to_string(index + 1) + "-i" + std::to_string(slot.incarnations);
    slot.process =
        chain_.start_relay(slot.name, soak_relay(instance, chain_.broker().kind()), "", "");
  }

  // Even steps kill a relay -9 (mid-batch: it holds leases and unacknowledged sends) and start
  // its successor; odd steps hit the broker.
  void inject(int step) {
    if (step % 2 == 0) {
      const size_t index = static_cast<size_t>(relay_kills_) % slots_.size();
      spdlog::info("fault {}: kill -9 of {}", step + 1, slots_[index].name);
      (void)slots_[index].process->kill_now();
      logs_.push_back(slots_[index].process->log());
      start_relay(index);
      ++relay_kills_;
      return;
    }
    ChainBroker& broker = chain_.broker();
    if (broker.kind() == BrokerKind::kMock) {
      // A burst of refusals every event of a request shares: retried by librdkafka, or a
      // failed report and the row goes again; either way no version may overtake.
      spdlog::info("fault {}: 5 produce requests refused with NOT_ENOUGH_REPLICAS", step + 1);
      broker.inject_request_errors("Produce", "NOT_ENOUGH_REPLICAS", 5);
    } else {
      // A node killed -9 leads some of the partitions being written: leader elections
      // mid-batch. Restarted before the next fault so that two of three stay up.
      const int node = 1 + broker_faults_ % broker.nodes();
      spdlog::info("fault {}: kill -9 of Kafka node {}, then its restart", step + 1, node);
      broker.kill_node(node);
      std::this_thread::sleep_for(std::chrono::seconds(2));
      broker.start_node(node);
      spdlog::info("Kafka node {} serves clients again", node);
    }
    ++broker_faults_;
  }

  void heal() {
    if (chain_.broker().kind() == BrokerKind::kMock)
      chain_.broker().clear_request_errors("Produce");
  }

  long long published_count() const {
    return chain_.sql().count("SELECT COUNT(*) FROM outbox_event WHERE status = 'PUBLISHED'");
  }

  Chain& chain_;
  const OrderingCommand& command_;
  std::vector<Slot> slots_;
  std::vector<std::string> logs_;  // of every relay incarnation, once it ended
  int relay_kills_ = 0;
  int broker_faults_ = 0;
  long long chained_ = 0;
  long long pipelined_batches_ = 0;
  long long relay_inversions_ = 0;
  long long inversion_lines_ = 0;
  long long pipelined_lines_ = 0;
  long long transaction_lines_ = 0;
};

std::string first_of(const std::vector<std::string>& items) {
  return items.empty() ? std::string("none") : items.front();
}

}  // namespace

int run_ordering_command(const OrderingCommand& command) {
  std::string error;
  std::optional<RunSetup> setup = prepare_run(command.common, "ordering", error);
  if (!setup) {
    spdlog::error("{}", error);
    return 69;
  }
  const std::string ordering =
      command.common.ordering.empty() ? "per_aggregate" : command.common.ordering;
  std::optional<OwnChain> own =
      start_own_chain(*setup, command.common, command.mariadb_dir, command.partitions, error);
  if (!own) {
    spdlog::error("cannot set the ordering run up: {}", error);
    return 69;
  }
  Chain* const chain = own->chain.get();
  spdlog::info(
      "ordering {}: {} aggregates x {} versions, {} relays, relay.ordering {}, {} faults, {} "
      "Kafka at {}, files in {}",
      setup->experiment_id, command.aggregates, command.versions, command.relays, ordering,
      command.faults, broker_kind_name(command.common.kafka), chain->bootstrap(), setup->work_dir);

  const auto started = steady_clock::now();
  OrderingRun run(*chain, command);
  const std::string problem = run.run();
  const double seconds = std::chrono::duration<double>(steady_clock::now() - started).count();

  const long long events = static_cast<long long>(command.aggregates) * command.versions;
  const harness::MariadbCli& sql = chain->sql();
  const long long published =
      sql.count("SELECT COUNT(*) FROM outbox_event WHERE status = 'PUBLISHED'");
  // transactional: what read_committed readers see (kcat's default isolation).
  const std::vector<harness::KafkaRecord> records = chain->order_topic();
  const harness::VersionOrder order = harness::version_order(records, command.versions);

  YAML::Node doc;
  doc["experimentId"] = setup->experiment_id;
  doc["kafka"] = broker_kind_name(command.common.kafka);
  doc["relayOrdering"] = ordering;
  doc["versions"] = collect_versions(setup->programs, sql, chain->broker());
  doc["shape"]["aggregates"] = command.aggregates;
  doc["shape"]["versionsPerAggregate"] = command.versions;
  doc["shape"]["backlogVersions"] = command.versions / 2;
  doc["shape"]["relays"] = command.relays;
  doc["shape"]["partitions"] = command.partitions;
  doc["shape"]["seconds"] = seconds;
  doc["faults"]["relayKills"] = run.relay_kills();
  doc["faults"]["brokerFaults"] = run.broker_faults();
  doc["faults"]["brokerFaultKind"] = command.common.kafka == BrokerKind::kMock
                                         ? "5 produce requests refused (NOT_ENOUGH_REPLICAS)"
                                         : "a node killed -9 and restarted";
  YAML::Node counts;
  counts["events"] = events;
  counts["published"] = published;
  counts["recordsOnTopic"] = static_cast<long long>(records.size());
  counts["aggregatesOnTopic"] = static_cast<long long>(order.aggregates);
  counts["duplicateVersions"] = order.duplicates;
  counts["firstOccurrenceInversions"] = order.inversions;
  counts["versionsChainedByDrainedRelays"] = run.chained();
  counts["pipelinedBatchesOfDrainedRelays"] = run.pipelined_batches();
  counts["pipelinedBatchesLogged"] = run.pipelined_lines();
  counts["transactionsCommittedLogged"] = run.transaction_lines();
  counts["inversionsSeenByRelays"] = run.inversion_lines();
  doc["counts"] = counts;

  const std::vector<std::pair<std::string, std::pair<bool, std::string>>> checks{
      {"everyEventPublished",
       {published == events,
        std::to_string(published) + " of " + std::to_string(events) + " PUBLISHED"}},
      {"everyVersionOnTheTopic",
       {order.aggregates == static_cast<size_t>(command.aggregates) && order.incomplete.empty(),
        std::to_string(order.aggregates) + " aggregates on the topic, " +
            std::to_string(order.incomplete.size()) +
            " missing a version (first: " + first_of(order.incomplete) + ")"}},
      {"firstOccurrencesInVersionOrder",
       {order.inversions == 0 && order.split.empty(),
        std::to_string(order.inversions) + " inversions in " +
            std::to_string(order.reordered.size()) +
            " aggregates (first: " + first_of(order.reordered) + "), " +
            std::to_string(order.split.size()) + " aggregates on more than one partition"}},
      {"noRelaySawAnInversion",
       {run.inversion_lines() == 0 && run.relay_inversions() == 0,
        std::to_string(run.inversion_lines()) + " 'acknowledged although an earlier version' "
                                                "lines in the relays' logs"}},
      {"theOrderedPathRan",
       {ordering == "none" || run.chained() > 0 || run.pipelined_lines() > 0 ||
            run.transaction_lines() > 0,
        ordering == "none"
            ? std::string("relay.ordering none: no chains expected")
            : std::to_string(run.pipelined_lines()) + " pipelined batches and " +
                  std::to_string(run.transaction_lines()) +
                  " Kafka transactions committed (the relays' logs), " +
                  std::to_string(run.chained()) + " versions chained by the relays that drained"}},
      {"everyRelayDrained",
       {problem.empty(),
        problem.empty() ? std::string("every relay exited 0 on SIGTERM") : problem}},
  };
  bool passed = true;
  for (const auto& [name, check] : checks) {
    doc["checks"][name] = check.first ? "PASS" : "FAIL";
    doc["checkEvidence"][name] = check.second;
    passed = passed && check.first;
    if (!check.first) spdlog::error("{}: FAIL: {}", name, check.second);
  }
  doc["verdict"] = passed ? "PASS" : "FAIL";
  YAML::Node report;
  report["orderingVerification"] = doc;
  if (!write_report(command.common, emit_yaml(report), error)) spdlog::error("{}", error);
  spdlog::info(
      "ordering {}: {} ({} events, {} records on the topic, {} duplicate versions, {} "
      "inversions; {} relay kills, {} broker faults; {} pipelined batches in the relays that "
      "drained, {:.1f} s)",
      setup->experiment_id, passed ? "PASS" : "FAIL", events, records.size(), order.duplicates,
      order.inversions, run.relay_kills(), run.broker_faults(), run.pipelined_batches(), seconds);
  if (!passed || command.common.keep) {
    if (setup->owned_dir) setup->owned_dir->keep();
    spdlog::info("kept for inspection: {}", setup->work_dir);
  }
  return passed ? 0 : 1;
}

}  // namespace outbox::verify
