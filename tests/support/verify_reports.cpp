#include "verify_reports.hpp"

#include <signal.h>  // NOLINT(modernize-deprecated-headers): POSIX kill
#include <catch2/catch.hpp>

#include <algorithm>
#include <iostream>
#include <optional>
#include <regex>
#include <sstream>

#include "test_env.hpp"

namespace outbox::test {
namespace {

// The brokerDeliveriesForEvent entry of one window's case (an undefined node when absent).
YAML::Node find_case(const YAML::Node& deliveries, const std::string& label) {
  for (const YAML::Node& event : deliveries) {
    if (event["case"].as<std::string>() == label) return event;
  }
  return YAML::Node(YAML::NodeType::Undefined);
}

}  // namespace

VerifyRun run_verify(std::vector<std::string> args, const std::string& report_file,
                     const std::string& root, std::chrono::seconds limit) {
  args.insert(args.begin(), verify_binary());
  args.push_back("--report");
  args.push_back(report_file);
  VerifyRun run;
  // The log goes to a file beside the report and is read whatever happens: a verifier still
  // running at `limit` is stopped (SIGTERM: it stops every process of its run) and its log so
  // far becomes result.err, so a hang fails the test with what the run was waiting for instead
  // of ending in ctest's timeout, which keeps no output.
  harness::ChildProcess verifier(args, report_file + ".log");
  std::optional<int> status = verifier.wait_exit(limit);
  std::string stopped;
  if (!status) {
    stopped = "\n[test] outbox-verify still running after " + std::to_string(limit.count()) +
              " s: stopped with SIGTERM\n";
    verifier.signal(SIGTERM);
    status = verifier.wait_exit(std::chrono::seconds(30));
  }
  run.result.status = status.value_or(-1);
  run.result.err = verifier.output() + stopped;
  run.report_text = read_text_file(report_file);
  try {
    run.report = YAML::Load(run.report_text)[root];
  } catch (const YAML::Exception&) {
    run.report = YAML::Node(YAML::NodeType::Undefined);
  }
  return run;
}

std::string verify_exit_summary(const VerifyRun& run, size_t lines) {
  const std::string& log = run.result.err;
  size_t start = log.size();
  for (size_t seen = 0; start > 0 && seen <= lines;) {
    if (log[--start] == '\n') ++seen;
  }
  if (start > 0) ++start;  // after the newline that ends the line before the tail
  // The last error line first: CI's excerpt of a failure keeps only a message's first lines.
  std::string last_error = "none";
  for (size_t end = log.size(); end > 0;) {
    const size_t begin = log.rfind('\n', end - 1);
    const size_t from = begin == std::string::npos ? 0 : begin + 1;
    const std::string line = log.substr(from, end - from);
    if (line.find(" error ") != std::string::npos || line.find(" critical ") != std::string::npos) {
      last_error = line;
      break;
    }
    if (begin == std::string::npos) break;
    end = begin;
  }
  return "outbox-verify exited " + std::to_string(run.result.status) +
         (run.report.IsMap() ? ", report read" : ", no report") +
         "; its last error: " + last_error + "\nits log ends:\n" + log.substr(start);
}

KeptDatabase::KeptDatabase(const std::string& name) : cli_(mysql_endpoint(name)), name_(name) {}

KeptDatabase::~KeptDatabase() {
  try {
    cli_.exec("DROP DATABASE IF EXISTS `" + name_ + "`");
  } catch (...) {  // NOLINT(bugprone-empty-catch): best effort cleanup
  }
}

void check_seven_windows_report(const VerifyRun& run, const KeptDatabase& db,
                                const std::string& broker) {
  const YAML::Node& doc = run.report;
  CHECK(run.result.status == 0);
  CHECK(run.report_text.find("${") == std::string::npos);  // every placeholder filled

  CHECK(doc["experimentId"].as<std::string>().rfind("vfy-windows-", 0) == 0);
  CHECK(doc["versions"]["application"]["relay"].as<std::string>().rfind("outbox-relay ", 0) == 0);
  // The server the report names is the one the run used (MariaDB or MySQL), read from outside.
  CHECK(doc["versions"]["mysqlAndDriver"]["server"].as<std::string>().find(db.server_version()) !=
        std::string::npos);
  CHECK(doc["versions"]["mysqlAndDriver"]["driver"].as<std::string>().rfind("MySQL Connector/C++ ",
                                                                            0) == 0);
  CHECK(doc["versions"]["mysqlAndDriver"]["clientLibrary"].as<std::string>().rfind("libmariadb ",
                                                                                   0) == 0);
  CHECK(doc["versions"]["brokerAndClient"]["broker"].as<std::string>().find(broker) !=
        std::string::npos);
  CHECK(doc["versions"]["brokerAndClient"]["independentReader"].as<std::string>().rfind("kcat ",
                                                                                        0) == 0);
  for (const char* key : {"requestId", "eventId", "orderId"})
    CHECK_FALSE(doc["event"][key].as<std::string>().empty());
  CHECK(doc["event"]["eventTypeAndVersion"].as<std::string>() == "ORDER_ACCEPTED v1");

  const std::vector<std::string> points{"BEFORE_ORDER_TRANSACTION_COMMIT",
                                        "COMMIT_SUCCEEDS_BUT_CLIENT_RECEIVES_EXCEPTION",
                                        "AFTER_COMMIT_BEFORE_RELAY_CLAIM",
                                        "AFTER_BROKER_CONFIRM_BEFORE_MARK_PUBLISHED",
                                        "DURING_CONCURRENT_CLAIM",
                                        "AFTER_CONSUMER_COMMIT_BEFORE_MESSAGE_ACK",
                                        "NON_TARGET_INTEGRITY_OR_DATA_ERROR_WHILE_CLAIMING"};
  REQUIRE(doc["injections"].size() == points.size());
  for (size_t i = 0; i < points.size(); ++i) {
    const YAML::Node injection = doc["injections"][i];
    CHECK(injection["point"].as<std::string>() == points[i]);
    CHECK_FALSE(injection["expected"].as<std::string>().empty());
    CHECK(injection["observed"].size() >= 2);
    CHECK(injection["verdict"].as<std::string>() == "PASS");
  }

  const YAML::Node counts = doc["counts"];
  for (const char* key : {"committedOrders", "outboxEventsByStatus", "brokerDeliveriesForEvent",
                          "consumerHandleAttempts", "consumedEventRows", "notificationJobs"}) {
    CHECK(counts[key].IsDefined());
  }
  CHECK(counts["committedOrders"].as<long long>() == 10);
  CHECK(counts["notificationJobs"].as<long long>() == 10);
  // The duplicate path really ran: the events of windows 4-6 were delivered twice (two copies
  // on the topic, or a copy whose offset the killed consumer never committed) and recognised
  // as already consumed, and still applied once.
  for (const char* label : {"4", "5", "6"}) {
    INFO("window " << label);
    const YAML::Node event = find_case(counts["brokerDeliveriesForEvent"], label);
    REQUIRE(event.IsMap());
    CHECK(event["deliveries"].as<int>() >= 2);
    CHECK(event["consumerAlreadyConsumed"].as<int>() >= 1);
    CHECK(event["consumerApplied"].as<int>() == 1);
  }
  CHECK(find_case(counts["brokerDeliveriesForEvent"], "4")["copiesOnTopic"].as<int>() == 2);
  CHECK(find_case(counts["brokerDeliveriesForEvent"], "5")["copiesOnTopic"].as<int>() == 2);
  for (const char* invariant :
       {"committedOrderHasOutboxEvent", "unknownCommitReconciledByStableRequestId",
        "noEffectWithoutCommittedOrder", "onlyTargetUniqueConflictMeansAlreadyConsumed",
        "oneLocalEffectPerConsumerAndEvent", "everyNonTerminalStateIsQueryable",
        "duplicatePathRan"}) {
    INFO(invariant);
    CHECK(doc["invariants"][invariant].as<std::string>() == "PASS");
  }
  CHECK(doc["verdict"].as<std::string>() == "PASS");

  // What the report claims, checked in the database it left: ten orders, each with its event
  // PUBLISHED and exactly one notification job that belongs to it.
  CHECK(db.count("SELECT COUNT(*) FROM orders") == 10);
  CHECK(db.count("SELECT COUNT(*) FROM outbox_event WHERE status = 'PUBLISHED'") == 10);
  CHECK(db.count("SELECT COUNT(*) FROM orders o JOIN notification_job j ON j.event_id = "
                 "o.acceptance_event_id AND j.order_id = o.id") == 10);
  CHECK(db.count("SELECT COUNT(*) FROM consumed_event") == 10);
}

std::map<std::string, YAML::Node> check_soak_report(const VerifyRun& run, int64_t events,
                                                    int faults) {
  const YAML::Node& doc = run.report;
  CHECK(run.result.status == 0);
  const std::string seed = doc["seed"].as<std::string>();
  CHECK(run.result.err.find("seed " + seed + " (replay: outbox-verify soak --seed " + seed) !=
        std::string::npos);
  for (const auto& check : doc["checks"]) {
    INFO(check.first.as<std::string>()
         << ": " << doc["checkEvidence"][check.first.as<std::string>()]);
    CHECK(check.second.as<std::string>() == "PASS");
  }
  CHECK(doc["checks"].size() == 7);
  CHECK(doc["counts"]["committedOrders"].as<long long>() == events);
  CHECK(doc["counts"]["notificationJobs"].as<long long>() == events);
  int injected = 0;
  std::map<std::string, YAML::Node> rows;
  // Nine kinds on either broker (the mock's per-request errors, the real cluster's node kills).
  REQUIRE(doc["duplicatesByFaultKind"].size() == 10);
  for (const YAML::Node& row : doc["duplicatesByFaultKind"]) {
    const std::string kind = row["fault"].as<std::string>();
    rows[kind] = row;
    if (kind == "unattributed") continue;
    INFO(kind);
    CHECK(row["injected"].as<int>() >= 1);  // every kind at least once
    CHECK(row["skipped"].as<int>() == 0);
    injected += row["injected"].as<int>();
  }
  CHECK(rows.count("unattributed") == 1);
  CHECK(injected == faults);
  CHECK(doc["faults"]["schedule"].size() == static_cast<size_t>(faults));
  CHECK(std::regex_search(run.result.err,
                          std::regex("mariadb_restart \\(stop, start\\) -> restarted")));
  CHECK(doc["verdict"].as<std::string>() == "PASS");
  return rows;
}

std::string soak_table(const VerifyRun& run) {
  std::istringstream lines(run.result.err);
  std::string table;
  bool inside = false;
  for (std::string line; std::getline(lines, line);) {
    if (line.find("duplicates per fault kind") != std::string::npos) {
      inside = true;
    } else if (inside && line.find("] soak ") != std::string::npos) {
      break;
    }
    if (inside) table += line.substr(std::min(line.size(), line.find("] ") + 2)) + "\n";
  }
  // The failed checks with their evidence, next to the table: a failure's own output (the
  // whole soak log) can be too long for a CI log's excerpt to reach the line that names it.
  const YAML::Node& doc = run.report;
  if (!doc.IsMap() || !doc["checks"].IsMap()) return table + "  no report: the soak ended early\n";
  int failed = 0;
  for (const auto& check : doc["checks"]) {
    if (check.second.as<std::string>() == "PASS") continue;
    ++failed;
    table += "  check " + check.first.as<std::string>() + " " + check.second.as<std::string>() +
             ": " + doc["checkEvidence"][check.first.as<std::string>()].as<std::string>() + "\n";
  }
  if (failed == 0) table += "  every check PASS\n";
  return table;
}

void check_ordering_report(const VerifyRun& run, const std::string& kafka,
                           const std::string& ordering) {
  const YAML::Node& doc = run.report;
  CHECK(doc["kafka"].as<std::string>() == kafka);
  CHECK(doc["relayOrdering"].as<std::string>() == ordering);
  for (const auto& check : doc["checks"]) {
    const std::string name = check.first.as<std::string>();
    INFO(name << ": " << doc["checkEvidence"][name].as<std::string>());
    CHECK(check.second.as<std::string>() == "PASS");
  }
  CHECK(doc["checks"].size() == 6);
  CHECK(doc["verdict"].as<std::string>() == "PASS");
  CHECK(run.result.status == 0);
  const YAML::Node& counts = doc["counts"];
  const long long events = 300 * 30;
  CHECK(counts["events"].as<long long>() == events);
  CHECK(counts["published"].as<long long>() == events);
  CHECK(counts["aggregatesOnTopic"].as<long long>() == 300);
  // Every record is a version of an aggregate, the duplicates among them counted.
  CHECK(counts["recordsOnTopic"].as<long long>() ==
        events + counts["duplicateVersions"].as<long long>());
  CHECK(counts["firstOccurrenceInversions"].as<long long>() == 0);
  CHECK(counts["inversionsSeenByRelays"].as<long long>() == 0);
  CHECK(doc["faults"]["relayKills"].as<int>() == 4);
  CHECK(doc["faults"]["brokerFaults"].as<int>() == 4);
  if (ordering == "per_aggregate") {
    CHECK(counts["pipelinedBatchesLogged"].as<long long>() > 0);
  } else if (ordering == "transactional") {
    CHECK(counts["transactionsCommittedLogged"].as<long long>() > 0);
  }
  std::cout << "[figures] outbox-verify ordering on the " << kafka << " cluster, " << ordering
            << ": " << events << " events (300 aggregates x 30 versions), "
            << doc["faults"]["relayKills"] << " relay kills, " << doc["faults"]["brokerFaults"]
            << " broker faults (" << doc["faults"]["brokerFaultKind"]
            << "): " << counts["recordsOnTopic"] << " records, " << counts["duplicateVersions"]
            << " duplicate versions, " << counts["firstOccurrenceInversions"]
            << " inversions; pipelined batches " << counts["pipelinedBatchesLogged"]
            << ", transactions " << counts["transactionsCommittedLogged"] << "; "
            << doc["shape"]["seconds"] << " s\n";
}

}  // namespace outbox::test
