#include "delivery_audit.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>

#include "daemon_logs.hpp"
#include "duplicate_attribution.hpp"
#include "relay_process.hpp"

namespace outbox::test {
namespace {

// Error names of the failure lines the relay logged for each event: "event <id> attempt 2 of
// 10: maybe delivered (topic t): _MSG_TIMED_OUT: ..." and the like name it after "): ", as
// does a paused partition's "event <id> maybe delivered (t[p]): _MSG_TIMED_OUT: ...; held".
std::map<std::string, std::set<std::string>> failure_errors(const std::string& log) {
  const auto is_error_name = [](const std::string& name) {
    return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
      return c == '_' || std::isupper(static_cast<unsigned char>(c)) ||
             std::isdigit(static_cast<unsigned char>(c));
    });
  };
  std::map<std::string, std::set<std::string>> errors;
  std::istringstream lines(log);
  for (std::string line; std::getline(lines, line);) {
    const size_t event = line.find("] event ");
    if (event == std::string::npos) continue;
    const size_t id_start = event + 8;
    const size_t id_end = line.find_first_of(" :", id_start);
    if (id_end == std::string::npos) continue;
    const size_t error_start = line.find("): ", id_end);
    if (error_start == std::string::npos) continue;
    const size_t error_end = line.find(':', error_start + 3);
    if (error_end == std::string::npos) continue;
    std::string name = line.substr(error_start + 3, error_end - error_start - 3);
    if (is_error_name(name)) errors[line.substr(id_start, id_end - id_start)].insert(name);
  }
  return errors;
}

std::string joined(const std::set<std::string>& names) {
  std::string out;
  for (const std::string& name : names)
    out += (out.empty() ? "" : ", ") + name;
  return out;
}

}  // namespace

DeliveryAudit audit_delivery(const TestDatabase& db,
                             const std::vector<harness::KafkaRecord>& records,
                             const std::string& rows_where) {
  DeliveryAudit audit;
  audit.topic = tally(records);
  std::set<std::string> ids;
  for (const auto& row :
       db.query("SELECT event_id, status FROM outbox_event WHERE " + rows_where)) {
    ++audit.rows;
    ids.insert(row[0]);
    const bool on_topic = audit.topic.deliveries.count(row[0]) != 0;
    if (row[1] == "PUBLISHED") {
      ++audit.published;
      if (!on_topic) audit.marked_not_on_topic.push_back(row[0]);
    }
    if (!on_topic) audit.rows_not_on_topic.push_back(row[0]);
  }
  for (const auto& [id, count] : audit.topic.deliveries) {
    if (ids.count(id) == 0) audit.records_without_row.push_back(id);
  }
  return audit;
}

void check_all_published_and_on_topic(const DeliveryAudit& audit) {
  INFO("PUBLISHED but not on the topic: " << first_few(audit.marked_not_on_topic));
  INFO("not on the topic: " << first_few(audit.rows_not_on_topic));
  INFO("on the topic without a row: " << first_few(audit.records_without_row));
  CHECK(audit.rows > 0);
  CHECK(audit.published == audit.rows);
  CHECK(audit.marked_not_on_topic.empty());
  CHECK(audit.rows_not_on_topic.empty());
  CHECK(audit.records_without_row.empty());
  CHECK(audit.topic.deliveries.size() == static_cast<size_t>(audit.rows));
}

std::string DuplicateCauses::summary() const {
  std::string out = std::to_string(copies);
  std::string causes;
  for (const auto& [cause, count] : by_cause)
    causes += (causes.empty() ? "" : ", ") + cause + ": " + std::to_string(count);
  if (beyond_claims_after_timeout > 0) {
    causes += (causes.empty() ? "" : ", ") + std::string("beyond one per claim after a delivery ") +
              "timed out: " + std::to_string(beyond_claims_after_timeout);
  }
  if (!unexplained.empty()) {
    causes += (causes.empty() ? "" : ", ") + std::string("UNEXPLAINED: ") +
              std::to_string(unexplained.size());
  }
  return causes.empty() ? out : out + " (" + causes + ")";
}

DuplicateCauses explain_duplicates(const TestDatabase& db,
                                   const std::vector<harness::KafkaRecord>& records,
                                   const std::vector<const RelayProcess*>& relays,
                                   const std::vector<const RelayProcess*>& killed) {
  verify::DuplicateEvidence evidence;
  evidence.topic = records;
  // Keyed by the lease tokens' first part, the instance id: a relay restarted with the same
  // instance id shares it (its own unlogged claims would count as killed too).
  for (const RelayProcess* relay : killed) {
    const std::string claimant = logged_claimant(*relay);
    evidence.killed_relay_instances[claimant.substr(0, claimant.find('/'))] = 0;
  }
  for (const auto& row :
       db.query("SELECT event_id, published_by FROM outbox_event WHERE status = 'PUBLISHED'")) {
    evidence.published_by[row[0]] = row[1];
  }
  std::map<std::string, std::set<std::string>> errors;
  for (size_t i = 0; i < relays.size(); ++i) {
    const std::string log = relays[i]->log();
    verify::RelayLog lines = verify::relay_log_lines(log, "relay-" + std::to_string(i));
    evidence.relay.events.insert(evidence.relay.events.end(), lines.events.begin(),
                                 lines.events.end());
    evidence.relay.abandoned.insert(evidence.relay.abandoned.end(), lines.abandoned.begin(),
                                    lines.abandoned.end());
    for (auto& [id, names] : failure_errors(log))
      errors[id].insert(names.begin(), names.end());
  }
  std::map<std::string, int> claims;
  for (const verify::RelayEventLine& line : evidence.relay.events) {
    if (line.step == verify::RelayEventStep::kClaimed) ++claims[line.event_id];
  }

  DuplicateCauses causes;
  for (const verify::DuplicateCopy& copy : verify::account_for_duplicates(evidence).copies) {
    ++causes.copies;
    if (copy.cause == verify::CopyCause::kProducerRetry) {
      causes.unexplained.push_back(copy.event_id + " " + copy.copy +
                                   " (no failure, lease loss "
                                   "or kill logged for it)");
      continue;
    }
    std::string cause = verify::copy_cause_name(copy.cause);
    if (copy.cause == verify::CopyCause::kDeliveryFailedButStored) {
      cause += " (" + joined(errors[copy.event_id]) + ")";
    }
    ++causes.by_cause[cause];
  }
  // A delivery that timed out (message.timeout.ms) makes librdkafka's idempotent producer
  // drain and bump its epoch; a message another partition had in flight, possibly stored, is
  // then sent again under the new epoch, which the broker cannot recognise as a retry: a
  // second copy from the same claim (librdkafka #4953; only transactions rule it out).
  const bool a_delivery_timed_out = std::any_of(errors.begin(), errors.end(), [](const auto& e) {
    return e.second.count("_MSG_TIMED_OUT") != 0;
  });
  for (const auto& [id, count] : tally(records).deliveries) {
    if (count <= claims[id]) continue;
    if (a_delivery_timed_out) {
      causes.beyond_claims_after_timeout += count - claims[id];
      continue;
    }
    causes.unexplained.push_back(id + ": " + std::to_string(count) + " copies from " +
                                 std::to_string(claims[id]) +
                                 " claims (and no delivery timed out)");
  }
  return causes;
}

std::string describe_unpublished(const TestDatabase& db,
                                 const std::vector<const RelayProcess*>& relays, int limit) {
  std::ostringstream out;
  out << "rows per status:";
  for (const auto& row : db.query("SELECT status, COUNT(*) FROM outbox_event GROUP BY status"))
    out << " " << row.at(0) << " " << row.at(1);
  out << "\ndatabase clock: " << db.scalar("SELECT CURRENT_TIMESTAMP(6)");
  out << "\noldest unpublished (event_id status attempts lease_expiries lease_owner lease_until "
         "next_attempt_at last_error):";
  for (const auto& row : db.query(
           "SELECT event_id, status, attempts, lease_expiries, COALESCE(lease_owner, '-'), "
           "COALESCE(lease_until, '-'), COALESCE(next_attempt_at, '-'), "
           "COALESCE(LEFT(last_error, 200), '-') FROM outbox_event WHERE status <> 'PUBLISHED' "
           "ORDER BY created_at, event_id LIMIT " +
           std::to_string(limit))) {
    out << "\n ";
    for (const std::string& field : row)
      out << " " << field;
  }
  constexpr size_t kLogTail = 4000;
  for (const RelayProcess* relay : relays) {
    const std::string log = relay->log();
    out << "\nlast of the log of " << relay->config_file() << ":\n"
        << (log.size() > kLogTail ? log.substr(log.size() - kLogTail) : log);
  }
  return out.str();
}

}  // namespace outbox::test
