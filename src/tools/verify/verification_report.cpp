#include "verification_report.hpp"

#include <optional>
#include <set>

#include "daemon_logs.hpp"
#include "harness/temp_dir.hpp"
#include "sql_literal.hpp"

namespace outbox::verify {
namespace {

// One invariant: PASS, FAIL, or NOT_RUN when the windows that exercise it were not selected.
struct Invariant {
  std::string name;
  std::optional<bool> holds;
  std::string evidence;
};

const char* verdict(std::optional<bool> holds) {
  if (!holds) return "NOT_RUN";
  return *holds ? "PASS" : "FAIL";
}

const InjectionReport* injection(const WindowsEvidence& evidence, int window) {
  for (const InjectionReport& report : evidence.injections) {
    if (report.window == window) return &report;
  }
  return nullptr;
}

std::vector<HandleAttempt> all_attempts(const WindowsEvidence& evidence) {
  std::vector<HandleAttempt> attempts;
  for (const std::string& file : evidence.planner_logs) {
    std::vector<HandleAttempt> more = planner_attempts(harness::read_text_file(file), file);
    attempts.insert(attempts.end(), more.begin(), more.end());
  }
  return attempts;
}

YAML::Node order_ids(const TracedOrder& order) {
  YAML::Node ids;
  ids["case"] = order.label;
  ids["requestId"] = order.request_id;
  ids["orderId"] = order.order_id;
  ids["eventId"] = order.event_id.empty() ? std::string("none (never committed)") : order.event_id;
  return ids;
}

YAML::Node injection_node(const InjectionReport& report) {
  YAML::Node node;
  node["point"] = report.point;
  node["expected"] = report.expected;
  node["observed"] = report.observed;
  node["window"] = report.window;
  node["forcedBy"] = report.forced_by;
  for (const TracedOrder& order : report.orders)
    node["ids"].push_back(order_ids(order));
  node["verdict"] = report.passed() ? "PASS" : "FAIL";
  for (const std::string& failure : report.failures)
    node["failed"].push_back(failure);
  return node;
}

YAML::Node deliveries_node(const EventDeliveries& event) {
  YAML::Node node;
  node["case"] = event.order.label;
  node["eventId"] = event.order.event_id;
  node["copiesOnTopic"] = static_cast<int>(event.copies.size());
  for (const std::string& copy : event.copies)
    node["offsets"].push_back(copy);
  node["redeliveredUncommittedOffset"] = event.redelivered_uncommitted;
  node["deliveries"] = event.deliveries();
  node["consumerApplied"] = event.applied;
  node["consumerAlreadyConsumed"] = event.already_consumed;
  node["consumerFailedAttempts"] = event.failed;
  return node;
}

// The event named in the report's `event:` block: window 4's (the one published twice by two
// relays and still applied once), else the first committed one.
const TracedOrder* headline_order(const WindowsEvidence& evidence) {
  const TracedOrder* first = nullptr;
  for (const InjectionReport& report : evidence.injections) {
    for (const TracedOrder& order : report.orders) {
      if (order.event_id.empty()) continue;
      if (report.window == 4) return &order;
      if (first == nullptr) first = &order;
    }
  }
  return first;
}

std::vector<Invariant> invariants(const WindowsEvidence& evidence, const harness::MariadbCli& sql,
                                  const std::vector<EventDeliveries>& events,
                                  const std::vector<HandleAttempt>& attempts) {
  std::vector<Invariant> checks;
  const std::string consumer = sql_literal(kConsumerName);

  const long long orders = sql.count("SELECT COUNT(*) FROM orders");
  const long long orphans = sql.count(
      "SELECT COUNT(*) FROM orders o LEFT JOIN outbox_event e ON e.event_id = "
      "o.acceptance_event_id WHERE e.event_id IS NULL");
  checks.push_back({"committedOrderHasOutboxEvent", orphans == 0,
                    std::to_string(orders) + " committed orders, " + std::to_string(orphans) +
                        " without their acceptance event in outbox_event"});

  {
    const InjectionReport* one = injection(evidence, 1);
    const InjectionReport* two = injection(evidence, 2);
    const long long repeated = sql.count(
        "SELECT COUNT(*) FROM (SELECT tenant_id, request_id FROM orders GROUP BY tenant_id, "
        "request_id HAVING COUNT(*) > 1) r");
    std::optional<bool> holds;
    if (one != nullptr || two != nullptr) {
      holds =
          repeated == 0 && (one == nullptr || one->passed()) && (two == nullptr || two->passed());
    }
    checks.push_back({"unknownCommitReconciledByStableRequestId", holds,
                      "windows 1b and 2: the UNKNOWN commits were reconciled by (tenant_id, "
                      "request_id) on the primary, the stored event id is the one sent, never "
                      "replayed blindly; request ids with more than one order: " +
                          std::to_string(repeated)});
  }

  const long long effects_without_order = sql.count(
      "SELECT COUNT(*) FROM notification_job j LEFT JOIN orders o ON o.acceptance_event_id = "
      "j.event_id AND o.id = j.order_id AND o.version = j.source_version WHERE o.id IS NULL");
  const long long claims_without_order = sql.count(
      "SELECT COUNT(*) FROM consumed_event c LEFT JOIN orders o ON o.acceptance_event_id = "
      "c.event_id WHERE c.consumer_name = " +
      consumer + " AND o.id IS NULL");
  checks.push_back({"noEffectWithoutCommittedOrder",
                    effects_without_order == 0 && claims_without_order == 0,
                    "notification_job rows without their committed order (id, event, version): " +
                        std::to_string(effects_without_order) +
                        "; consumed_event rows without a committed order: " +
                        std::to_string(claims_without_order)});

  {
    // Every "already consumed" verdict followed an applied delivery of that same event; and
    // window 7's near misses were failures, never "already consumed".
    std::map<std::string, int64_t> first_applied;
    for (const HandleAttempt& attempt : attempts) {
      if (attempt.outcome != HandleOutcome::kApplied) continue;
      auto [it, inserted] = first_applied.emplace(attempt.event_id, attempt.at_us);
      if (!inserted) it->second = std::min(it->second, attempt.at_us);
    }
    long long true_duplicates = 0;
    long long unfounded = 0;
    for (const HandleAttempt& attempt : attempts) {
      if (attempt.outcome != HandleOutcome::kAlreadyConsumed) continue;
      const auto applied = first_applied.find(attempt.event_id);
      if (applied != first_applied.end() && applied->second <= attempt.at_us) {
        ++true_duplicates;
      } else {
        ++unfounded;
      }
    }
    const InjectionReport* seven = injection(evidence, 7);
    std::optional<bool> holds = unfounded == 0;
    if (seven != nullptr) holds = *holds && seven->passed();
    checks.push_back({"onlyTargetUniqueConflictMeansAlreadyConsumed", holds,
                      std::to_string(true_duplicates) +
                          " 'already consumed' verdicts, each after the event was applied; " +
                          std::to_string(unfounded) +
                          " without an earlier applied delivery; window 7's 1062 on another "
                          "key, 1452 and 1406 were failures, not acknowledged"});
  }

  {
    const long long events_total = sql.count("SELECT COUNT(*) FROM outbox_event");
    const long long claims =
        sql.count("SELECT COUNT(*) FROM consumed_event WHERE consumer_name = " + consumer);
    const long long jobs = sql.count("SELECT COUNT(*) FROM notification_job");
    std::map<std::string, int> applied;
    for (const HandleAttempt& attempt : attempts) {
      if (attempt.outcome == HandleOutcome::kApplied) ++applied[attempt.event_id];
    }
    long long applied_twice = 0;
    for (const auto& [id, count] : applied)
      applied_twice += count > 1 ? 1 : 0;
    checks.push_back({"oneLocalEffectPerConsumerAndEvent",
                      claims == events_total && jobs == events_total && applied_twice == 0 &&
                          static_cast<long long>(applied.size()) == events_total,
                      std::to_string(events_total) + " events, " + std::to_string(claims) +
                          " consumed_event rows of " + kConsumerName + ", " + std::to_string(jobs) +
                          " notification jobs; events applied more than "
                          "once in the consumers' logs: " +
                          std::to_string(applied_twice)});
  }

  {
    bool all = !evidence.state_lookups.empty();
    std::string looked;
    for (const auto& [state, answered] : evidence.state_lookups) {
      all = all && answered;
      looked += (looked.empty() ? "" : "; ") + state + (answered ? "" : " (NOT answered)");
    }
    checks.push_back({"everyNonTerminalStateIsQueryable",
                      evidence.state_lookups.empty() ? std::optional<bool>() : all,
                      "looked up by stable id with outboxctl while the state held: " + looked});
  }

  {
    std::optional<bool> holds;
    std::string ran;
    for (const EventDeliveries& event : events) {
      if (event.order.window < 4 || event.order.window > 6) continue;
      const bool duplicate =
          event.deliveries() >= 2 && event.already_consumed >= 1 && event.applied == 1;
      holds = holds.value_or(true) && duplicate;
      ran += (ran.empty() ? "" : "; ") + std::string("window ") + event.order.label + ": " +
             std::to_string(event.deliveries()) + " deliveries (" +
             std::to_string(event.copies.size()) + " copies on the topic, " +
             std::to_string(event.redelivered_uncommitted) + " redelivered uncommitted), " +
             std::to_string(event.already_consumed) + " recognised as already consumed, " +
             std::to_string(event.applied) + " applied";
    }
    checks.push_back({"duplicatePathRan", holds, ran});
  }

  {
    const long long unpublished =
        sql.count("SELECT COUNT(*) FROM outbox_event WHERE status <> 'PUBLISHED'");
    std::set<std::string> on_topic;
    for (const harness::KafkaRecord& record : evidence.topic) {
      if (const auto id = record.headers.find("event_id"); id != record.headers.end())
        on_topic.insert(id->second);
    }
    long long missing = 0;
    for (const harness::Rows& rows = sql.query("SELECT event_id FROM outbox_event");
         const auto& row : rows) {
      missing += on_topic.count(row[0]) == 0 ? 1 : 0;
    }
    checks.push_back(
        {"noSilentLoss", unpublished == 0 && missing == 0,
         "events not PUBLISHED: " + std::to_string(unpublished) +
             "; committed events missing on the broker (kcat): " + std::to_string(missing)});
  }
  return checks;
}

}  // namespace

std::vector<EventDeliveries> deliveries_of(const WindowsEvidence& evidence,
                                           const std::vector<HandleAttempt>& attempts) {
  std::vector<EventDeliveries> events;
  for (const InjectionReport& report : evidence.injections) {
    for (const TracedOrder& order : report.orders) {
      if (order.event_id.empty()) continue;
      EventDeliveries event;
      event.order = order;
      for (const harness::KafkaRecord& record : evidence.topic) {
        const auto id = record.headers.find("event_id");
        if (id != record.headers.end() && id->second == order.event_id) {
          event.copies.push_back(std::to_string(record.partition) + "@" +
                                 std::to_string(record.offset));
        }
      }
      for (const UncommittedRedelivery& redelivery : evidence.redeliveries)
        event.redelivered_uncommitted += redelivery.event_id == order.event_id ? 1 : 0;
      for (const HandleAttempt& attempt : attempts) {
        if (attempt.event_id != order.event_id) continue;
        event.applied += attempt.outcome == HandleOutcome::kApplied ? 1 : 0;
        event.already_consumed += attempt.outcome == HandleOutcome::kAlreadyConsumed ? 1 : 0;
        event.failed += attempt.outcome == HandleOutcome::kFailed ? 1 : 0;
      }
      events.push_back(std::move(event));
    }
  }
  return events;
}

YAML::Node build_report(const WindowsEvidence& evidence, const harness::MariadbCli& sql,
                        bool& passed) {
  const std::vector<HandleAttempt> attempts = all_attempts(evidence);
  const std::vector<EventDeliveries> events = deliveries_of(evidence, attempts);
  passed = evidence.shutdown_problem.empty();

  YAML::Node doc;
  doc["experimentId"] = evidence.experiment_id;
  doc["database"] = evidence.database;
  doc["kafka"] = evidence.broker;
  doc["relayOrdering"] = evidence.ordering;
  doc["versions"] = evidence.versions;
  if (const TracedOrder* order = headline_order(evidence)) {
    doc["event"]["requestId"] = order->request_id;
    doc["event"]["eventId"] = order->event_id;
    doc["event"]["orderId"] = order->order_id;
    const harness::Rows type =
        sql.query("SELECT event_type, event_version FROM outbox_event WHERE event_id = " +
                  sql_literal(order->event_id));
    doc["event"]["eventTypeAndVersion"] =
        type.empty() ? std::string("unknown") : type[0][0] + " v" + type[0][1];
    doc["event"]["tracedThrough"] = "window " + order->label;
  }
  doc["injections"] = YAML::Node(YAML::NodeType::Sequence);
  for (const InjectionReport& report : evidence.injections) {
    doc["injections"].push_back(injection_node(report));
    passed = passed && report.passed();
  }

  YAML::Node counts;
  counts["committedOrders"] = sql.count("SELECT COUNT(*) FROM orders");
  counts["outboxEventsByStatus"] = YAML::Node(YAML::NodeType::Map);
  for (const auto& row :
       sql.query("SELECT status, COUNT(*) FROM outbox_event GROUP BY status ORDER BY status")) {
    counts["outboxEventsByStatus"][row[0]] = std::stoll(row[1]);
  }
  for (const EventDeliveries& event : events)
    counts["brokerDeliveriesForEvent"].push_back(deliveries_node(event));
  long long applied = 0;
  long long duplicates = 0;
  long long failed = 0;
  for (const HandleAttempt& attempt : attempts) {
    applied += attempt.outcome == HandleOutcome::kApplied ? 1 : 0;
    duplicates += attempt.outcome == HandleOutcome::kAlreadyConsumed ? 1 : 0;
    failed += attempt.outcome == HandleOutcome::kFailed ? 1 : 0;
  }
  counts["consumerHandleAttempts"] = static_cast<long long>(attempts.size());
  counts["consumerHandleAttemptsByOutcome"]["applied"] = applied;
  counts["consumerHandleAttemptsByOutcome"]["alreadyConsumed"] = duplicates;
  counts["consumerHandleAttemptsByOutcome"]["failed"] = failed;
  counts["brokerMessagesOnTopic"] = static_cast<long long>(evidence.topic.size());
  counts["consumedEventRows"] = sql.count(
      "SELECT COUNT(*) FROM consumed_event WHERE consumer_name = " + sql_literal(kConsumerName));
  counts["notificationJobs"] = sql.count("SELECT COUNT(*) FROM notification_job");
  doc["counts"] = counts;

  for (const Invariant& invariant : invariants(evidence, sql, events, attempts)) {
    doc["invariants"][invariant.name] = verdict(invariant.holds);
    doc["invariantEvidence"][invariant.name] = invariant.evidence;
    passed = passed && invariant.holds.value_or(true);
  }
  if (!evidence.shutdown_problem.empty()) doc["shutdownProblem"] = evidence.shutdown_problem;
  doc["verdict"] = passed ? "PASS" : "FAIL";
  YAML::Node root;
  root["repeatableDeliveryVerification"] = doc;
  return root;
}

std::string emit_yaml(const YAML::Node& document) {
  YAML::Emitter out;
  out.SetIndent(2);
  out << document;
  return std::string(out.c_str()) + "\n";
}

}  // namespace outbox::verify
