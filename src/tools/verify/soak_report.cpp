#include "soak_report.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "harness/temp_dir.hpp"
#include "sql_literal.hpp"
#include "writer_evidence.hpp"

namespace outbox::verify {
namespace {

DuplicateEvidence read_evidence(const Chain& chain, const SoakRun& run) {
  DuplicateEvidence evidence;
  evidence.faults = run.injected();
  evidence.topic = chain.order_topic();
  for (const auto& row :
       chain.sql().query("SELECT event_id, COALESCE(published_by, '') FROM outbox_event")) {
    evidence.published_by[row[0]] = row[1];
  }
  for (const ProcessSlot& slot : run.relays()) {
    for (const Incarnation& incarnation : slot.incarnations) {
      RelayLog log =
          relay_log_lines(harness::read_text_file(incarnation.log_file), incarnation.name);
      evidence.relay.events.insert(evidence.relay.events.end(), log.events.begin(),
                                   log.events.end());
      evidence.relay.abandoned.insert(evidence.relay.abandoned.end(), log.abandoned.begin(),
                                      log.abandoned.end());
      evidence.relay_slot_of_instance[incarnation.instance] = slot.index;
      if (incarnation.killed_by != 0)
        evidence.killed_relay_instances[incarnation.instance] = incarnation.killed_by;
    }
  }
  for (const ProcessSlot& slot : run.consumers()) {
    for (const Incarnation& incarnation : slot.incarnations) {
      std::vector<HandleAttempt> attempts =
          planner_attempts(harness::read_text_file(incarnation.log_file), incarnation.name);
      evidence.attempts.insert(evidence.attempts.end(), attempts.begin(), attempts.end());
      evidence.consumer_slot_of_process[incarnation.name] = slot.index;
      if (incarnation.killed_by != 0)
        evidence.killed_consumers[incarnation.name] = incarnation.killed_by;
    }
  }
  return evidence;
}

std::string table_text(const std::vector<DuplicatesRow>& rows, const DuplicateAccount& account) {
  std::string text;
  char line[256];
  std::snprintf(line, sizeof(line), "%-26s %9s %18s %22s  %s\n", "fault kind", "injected",
                "broker duplicates", "consumer redeliveries", "mechanisms");
  text += line;
  int injected = 0;
  long long copies = 0;
  long long redeliveries = 0;
  for (const DuplicatesRow& row : rows) {
    std::string mechanisms;
    for (const auto& [mechanism, count] : row.mechanisms)
      mechanisms += (mechanisms.empty() ? "" : "; ") + mechanism + " " + std::to_string(count);
    const std::string count =
        row.fault_kind == "unattributed"
            ? "-"
            : std::to_string(row.injected) +
                  (row.skipped ? " (" + std::to_string(row.skipped) + " skipped)" : "");
    std::snprintf(line, sizeof(line), "%-26s %9s %18lld %22lld  ", row.fault_kind.c_str(),
                  count.c_str(), row.broker_duplicates, row.consumer_redeliveries);
    text += line + mechanisms + "\n";
    injected += row.injected;
    copies += row.broker_duplicates;
    redeliveries += row.consumer_redeliveries;
  }
  std::snprintf(line, sizeof(line), "%-26s %9d %18lld %22lld\n", "total", injected, copies,
                redeliveries);
  text += line;
  text += "'already consumed' verdicts (the dedupe branch ran): " +
          std::to_string(account.already_consumed) + "\n";
  return text;
}

}  // namespace

SoakVerdict judge_soak(const SoakSummary& summary, const Chain& chain, const SoakRun& run) {
  const harness::MariadbCli& sql = chain.sql();
  const DuplicateEvidence evidence = read_evidence(chain, run);
  const DuplicateAccount account = account_for_duplicates(evidence);
  const BrokerKind broker = chain.broker().kind();
  const std::vector<DuplicatesRow> rows =
      duplicates_by_fault_kind(evidence, account, fault_kinds(broker));

  SoakVerdict verdict;
  verdict.table = table_text(rows, account);
  YAML::Node doc;
  doc["experimentId"] = summary.experiment_id;
  doc["database"] = summary.database;
  doc["seed"] = summary.seed;
  doc["replay"] = summary.replay;
  doc["kafka"] = broker_kind_name(broker);
  doc["versions"] = summary.versions;
  doc["shape"]["events"] = summary.shape.events;
  doc["shape"]["relays"] = summary.shape.relays;
  doc["shape"]["consumers"] = summary.shape.consumers;
  doc["shape"]["writers"] = summary.shape.writers;
  doc["shape"]["partitions"] = summary.partitions;
  doc["shape"]["seconds"] = static_cast<long long>(run.seconds());

  // The writers' side: how often a commit's outcome was unknown and how it was reconciled.
  long long accepted = 0;
  bool writers_done = true;
  YAML::Node writers;
  for (const WriterRun& writer : run.writers()) {
    const std::optional<WriterSummary> parsed = writer_summary(writer.process->output());
    writers_done = writers_done && parsed && parsed->done && parsed->accepted == writer.orders;
    if (!parsed) continue;
    accepted += parsed->accepted;
    YAML::Node node = summary_yaml(*parsed);
    node["account"] = writer.account;
    writers.push_back(node);
  }
  doc["writers"] = writers;

  int skipped = 0;
  for (const InjectedFault& injected : run.injected()) {
    skipped += injected.applied ? 0 : 1;
    doc["faults"]["schedule"].push_back(describe(injected.fault) + " -> " + injected.outcome);
  }
  // What this broker cannot take, and what stands in for it.
  if (broker == BrokerKind::kReal) {
    doc["faults"]["notOnThisBroker"]["broker_request_errors"] =
        "per-request error injection is the mock cluster's; a real cluster's errors come from "
        "real faults: broker_kill (kill -9 of a node) stands in for it";
  } else {
    doc["faults"]["notOnThisBroker"]["broker_kill"] =
        "the mock cluster's brokers are threads of one process: no node to kill -9 (--kafka real)";
  }
  for (const DuplicatesRow& row : rows) {
    YAML::Node node;
    node["fault"] = row.fault_kind;
    if (row.fault_kind != "unattributed") {
      node["injected"] = row.injected;
      node["skipped"] = row.skipped;
    }
    node["brokerDuplicates"] = row.broker_duplicates;
    node["consumerRedeliveries"] = row.consumer_redeliveries;
    node["mechanisms"] = YAML::Node(YAML::NodeType::Map);
    for (const auto& [mechanism, count] : row.mechanisms)
      node["mechanisms"][mechanism] = count;
    doc["duplicatesByFaultKind"].push_back(node);
  }

  const long long events = summary.shape.events;
  const long long orders = sql.count("SELECT COUNT(*) FROM orders");
  const long long outbox = sql.count("SELECT COUNT(*) FROM outbox_event");
  const long long published =
      sql.count("SELECT COUNT(*) FROM outbox_event WHERE status = 'PUBLISHED'");
  const long long orders_without_event = sql.count(
      "SELECT COUNT(*) FROM orders o LEFT JOIN outbox_event e ON e.event_id = "
      "o.acceptance_event_id WHERE e.event_id IS NULL");
  const long long jobs = sql.count("SELECT COUNT(*) FROM notification_job");
  const long long matching_jobs = sql.count(
      "SELECT COUNT(*) FROM orders o JOIN notification_job j ON j.event_id = "
      "o.acceptance_event_id AND j.order_id = o.id AND j.source_version = o.version");
  const long long consumed = sql.count(
      "SELECT COUNT(*) FROM consumed_event WHERE consumer_name = " + sql_literal(kConsumerName));
  std::set<std::string> on_topic;
  for (const harness::KafkaRecord& record : evidence.topic) {
    if (const auto id = record.headers.find("event_id"); id != record.headers.end())
      on_topic.insert(id->second);
  }
  long long missing = 0;
  for (const auto& [event_id, claim] : evidence.published_by)
    missing += on_topic.count(event_id) == 0 ? 1 : 0;
  long long applied = 0;
  for (const HandleAttempt& attempt : evidence.attempts)
    applied += attempt.outcome == HandleOutcome::kApplied ? 1 : 0;
  const long long duplicate_copies =
      static_cast<long long>(evidence.topic.size()) - static_cast<long long>(on_topic.size());

  const auto redeliveries = static_cast<long long>(account.redeliveries.size());
  const long long explained = explained_verdicts(account, duplicate_copies, consumed, applied);

  YAML::Node counts;
  counts["committedOrders"] = orders;
  counts["outboxEventsByStatus"] = YAML::Node(YAML::NodeType::Map);
  for (const auto& row :
       sql.query("SELECT status, COUNT(*) FROM outbox_event GROUP BY status ORDER BY status")) {
    counts["outboxEventsByStatus"][row[0]] = std::stoll(row[1]);
  }
  counts["messagesOnTopic"] = static_cast<long long>(evidence.topic.size());
  counts["distinctEventsOnTopic"] = static_cast<long long>(on_topic.size());
  counts["duplicateCopiesOnTopic"] = duplicate_copies;
  counts["consumerHandleAttempts"] = static_cast<long long>(evidence.attempts.size());
  counts["consumerApplied"] = applied;
  counts["consumerAlreadyConsumed"] = account.already_consumed;
  counts["consumerRedeliveries"] = redeliveries;
  counts["consumedEventRows"] = consumed;
  counts["notificationJobs"] = jobs;
  doc["counts"] = counts;

  const std::vector<std::pair<std::string, std::pair<bool, std::string>>> checks{
      {"writersAcceptedEveryOrder",
       {writers_done && accepted == events,
        std::to_string(accepted) + " of " + std::to_string(events) + " orders accepted"}},
      {"zeroEventsLost",
       {orders == events && outbox == events && orders_without_event == 0 && missing == 0,
        std::to_string(orders) + " orders, " + std::to_string(outbox) + " outbox events, " +
            std::to_string(orders_without_event) + " orders without their event, " +
            std::to_string(missing) + " events missing on the broker (kcat)"}},
      {"everyEventPublished",
       {published == outbox && outbox == events,
        std::to_string(published) + " of " + std::to_string(outbox) + " PUBLISHED"}},
      {"oneLocalEffectPerEvent",
       {jobs == events && matching_jobs == events && consumed == events && applied <= events,
        std::to_string(jobs) + " notification jobs (" + std::to_string(matching_jobs) +
            " matching their order), " + std::to_string(consumed) +
            " consumed_event rows, applied " + std::to_string(applied) + " times by the logs"}},
      {"everyDuplicateWentThroughTheDedupe",
       {account.already_consumed == explained,
        std::to_string(account.already_consumed) + " 'already consumed' verdicts for " +
            std::to_string(duplicate_copies) + " duplicate copies + " +
            std::to_string(redeliveries) + " redeliveries + " +
            std::to_string(explained - duplicate_copies - redeliveries) +
            " effects a killed consumer committed but never logged (" + std::to_string(consumed) +
            " consumed_event rows, " + std::to_string(applied) + " logged applies)"}},
      {"everyProcessDrained",
       {summary.run_problem.empty(),
        summary.run_problem.empty() ? std::string("every relay and consumer exited 0 on SIGTERM")
                                    : summary.run_problem}},
      {"everyFaultInjected",
       {skipped == 0, std::to_string(run.injected().size() - static_cast<size_t>(skipped)) +
                          " of " + std::to_string(run.injected().size()) + " injected"}},
  };
  verdict.passed = true;
  for (const auto& [name, check] : checks) {
    doc["checks"][name] = check.first ? "PASS" : "FAIL";
    doc["checkEvidence"][name] = check.second;
    verdict.passed = verdict.passed && check.first;
  }
  doc["verdict"] = verdict.passed ? "PASS" : "FAIL";
  verdict.report["chaosSoak"] = doc;
  return verdict;
}

}  // namespace outbox::verify
