// outboxctl replay --since T [--until T] [--topic X | --aggregate-type X] [--dry-run]
//                  [--rate N] [--batch-size N]
// Publishes the PUBLISHED events of a window again, for a consumer that lost data or a new one
// that needs history past the topic's retention. Each message is the first publication's
// (same topic, partition, key, value and headers: consumers deduplicate it by event_id) plus
// the header outbox_replay naming the replay.
//
// What it leaves to the live flow: the outbox rows are only read (no claim, no lock, no
// write: a relay never waits for a replay, and a replayed row stays PUBLISHED), in short
// statements bounded by --batch-size whatever the filter (replay_reader.hpp), along
// idx_outbox_pending's PUBLISHED range, which the relays' claims (PENDING range) never read;
// on Kafka it is a producer of its own (client.id outboxctl-replay), paced to --rate events a
// second (1,000 by default).
//
// Order: chunks in created_at order, each aggregate's events within a chunk in event_version
// order, all on one idempotent producer, so a partition receives an aggregate's events in the
// order they were read. A chunk never splits a created_at, so an aggregate's versions stay in
// version order unless a writer stamped a later version with an earlier created_at; the answer
// counts such inversions.
#include "replay_command.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <map>
#include <unordered_map>

#include "lease_store/table_columns.hpp"
#include "operator_identity.hpp"
#include "replay_producer.hpp"
#include "replay_purged.hpp"
#include "replay_reader.hpp"
#include "replay_request.hpp"

namespace outbox::ctl {
namespace {

using std::chrono::steady_clock;

constexpr std::chrono::seconds kProbeTimeout{10};
constexpr std::chrono::seconds kProgressInterval{10};
constexpr size_t kFailuresListed = 10;
// Aggregates whose last replayed version is remembered, for the inversion count: bounded, so a
// replay of millions of aggregates holds no more than some tens of MB for it.
constexpr size_t kRememberedAggregates = 200'000;

// "2026-12-06T10:00:00.123Z alice@ops-1": which replay sent a message (the outbox_replay
// header).
std::string replay_id() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  const auto millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()) % 1000;
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  std::array<char, 32> text{};
  (void)std::strftime(text.data(), text.size(), "%Y-%m-%dT%H:%M:%S", &utc);
  std::array<char, 8> fraction{};
  (void)std::snprintf(fraction.data(), fraction.size(), ".%03dZ", static_cast<int>(millis.count()));
  return std::string(text.data()) + fraction.data() + " " + operator_name();
}

// A flag's value as the shell reads it back: quoted unless it is plain.
std::string shell_word(const std::string& text) {
  const bool plain = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '_' || c == '-' ||
           c == ':' || c == '/';
  });
  if (plain) return text;
  std::string quoted = "'";
  for (const char c : text) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

// What the replay did so far.
struct ReplayTally {
  int64_t events = 0;  // matched the filter (replayed, or would be on a dry run)
  int64_t delivered = 0;
  std::map<std::string, int64_t> by_topic;
  std::vector<ReplayFailure> failed;
  int64_t failed_count = 0;
  int64_t inversions = 0;
  // Rows the relay's kafka.topic / kafka.topics no longer route (changed since they were
  // published): skipped, counted, the first few named.
  int64_t unroutable = 0;
  std::vector<ReplayFailure> unroutable_events;
  // Rows deleted between a chunk's key read and its payload read (a purge beside the replay).
  size_t gone = 0;
  std::string resume_since;  // set when a chunk failed: where a new replay picks up
};

// Counts a later version replayed before an earlier one of its aggregate (see the header).
class InversionCheck {
 public:
  bool inverted(const OutboxEvent& event) {
    std::string key = event.aggregate_type;
    key += '\0';
    key += event.aggregate_id;
    const auto found = last_.find(key);
    if (found == last_.end()) {
      if (last_.size() < kRememberedAggregates) last_.emplace(std::move(key), event.event_version);
      return false;
    }
    const bool backwards = event.event_version < found->second;
    found->second = std::max(found->second, event.event_version);
    return backwards;
  }

 private:
  std::unordered_map<std::string, int64_t> last_;
};

Value failures_value(const std::vector<ReplayFailure>& failures) {
  Value list = Value::list();
  for (size_t i = 0; i < failures.size() && i < kFailuresListed; ++i) {
    list.add(Value::object().set("event_id", failures[i].event_id).set("error", failures[i].error));
  }
  return list;
}

Value purged_value(const PurgedInWindow& purged) {
  if (!purged.known) {
    return Value::object().set("note",
                               "unknown: no outbox_purge_log (apply sql/015_outbox_purge_log.sql)");
  }
  return Value::object()
      .set("events", purged.inside)
      .set("at_window_edges", purged.at_edges)
      .set("note", purged.inside + purged.at_edges == 0
                       ? "none recorded (outbox_purge_log counts the purges since sql/015 was "
                         "applied)"
                       : "deleted by retention (outboxctl purge) before or during this replay, "
                         "so not replayed; at_window_edges: purged from the window's first or "
                         "last hour, which it covers in part");
}

// On stderr every kProgressInterval: counts, and how far the window is read (where a replay
// cut short by a lost connection would go on from).
void print_progress(const ReplayTally& tally, bool dry_run, steady_clock::time_point started,
                    const std::string& chunk_since) {
  const double seconds = std::chrono::duration<double>(steady_clock::now() - started).count();
  std::cerr << "outboxctl replay: " << tally.events << (dry_run ? " events matched" : " sent, ")
            << (dry_run ? "" : std::to_string(tally.delivered) + " delivered") << " in "
            << static_cast<int64_t>(seconds) << " s; read up to created_at " << iso_utc(chunk_since)
            << "\n";
}

}  // namespace

int replay(CommandContext& context) {
  const ParsedReplay parsed = parse_replay_args(context.args);
  if (!parsed.request) {
    std::cerr << "outboxctl replay: " << parsed.problem << "\n";
    return 64;
  }
  const ReplayRequest& request = *parsed.request;
  const Outcome<ReplayWindow> window = resolve_window(context.session, request);
  if (!window)
    return refuse(context, Value::object(), "outboxctl replay: " + window.error().message);

  lease_sql::Schema schema = claim_schema(context.config);
  schema.read_json_as_text(json_columns(context.session, schema.table_name()));
  context.session.commit();
  const TopicRouter router = topic_router(context.config.kafka);
  const std::string id = replay_id();

  std::unique_ptr<ReplayProducer> producer;
  if (!request.dry_run) {
    Outcome<std::unique_ptr<ReplayProducer>> created =
        ReplayProducer::create(context.config.kafka, id, request.rate);
    if (!created) {
      return refuse(context, Value::object(), "outboxctl replay: " + created.error().message);
    }
    producer = std::move(created).value();
    if (const Status reachable = producer->probe(kProbeTimeout); !reachable) {
      return refuse(context, Value::object(),
                    "outboxctl replay: Kafka at " + context.config.kafka.bootstrap_servers + ": " +
                        reachable.error().message);
    }
  }

  const auto started = steady_clock::now();
  auto progress_due = started + kProgressInterval;
  ReplayTally tally;
  InversionCheck inversions;
  ReplayReader reader(context.session, schema, window.value(), request.batch_size);
  for (std::vector<ReplayRow> rows = reader.next(); !rows.empty(); rows = reader.next()) {
    // Read in created_at order: the first row's is the chunk's earliest.
    const std::string chunk_since = rows.front().created_at;
    order_versions_within_aggregates(rows);
    std::vector<ReplayRow> chosen;
    for (ReplayRow& row : rows) {
      if (request.aggregate_type && row.event.aggregate_type != *request.aggregate_type) continue;
      Outcome<std::string> topic = router.route(row.event);
      if (!topic) {
        // Published once, so routable then: kafka.topic(s) changed since. Not a reason to
        // stop: a new replay would meet it again.
        ++tally.unroutable;
        if (tally.unroutable_events.size() < kFailuresListed) {
          tally.unroutable_events.push_back({row.event.event_id, topic.error().message});
        }
        continue;
      }
      if (request.topic && topic.value() != *request.topic) continue;
      row.topic = std::move(topic).value();
      chosen.push_back(std::move(row));
    }
    // The bodies of the chosen rows only; fetch_bodies keeps their order and drops rows
    // purged since the key read.
    if (producer && !chosen.empty()) chosen = reader.fetch_bodies(std::move(chosen), tally.gone);
    for (const ReplayRow& row : chosen) {
      if (inversions.inverted(row.event)) ++tally.inversions;
      ++tally.by_topic[row.topic];
    }
    tally.events += static_cast<int64_t>(chosen.size());
    if (producer && !chosen.empty()) {
      ChunkOutcome outcome = producer->send(chosen);
      tally.delivered += static_cast<int64_t>(outcome.delivered);
      tally.failed_count += static_cast<int64_t>(outcome.failed.size());
      for (ReplayFailure& failure : outcome.failed)
        tally.failed.push_back(std::move(failure));
    }
    if (!tally.failed.empty()) {
      // Everything before this chunk was delivered; a new replay from its first created_at
      // sends nothing twice that was delivered before it (a chunk holds every row of its
      // created_at).
      tally.resume_since = iso_utc(chunk_since);
      break;
    }
    if (steady_clock::now() >= progress_due) {
      print_progress(tally, request.dry_run, started, chunk_since);
      progress_due = steady_clock::now() + kProgressInterval;
    }
  }
  // After the walk: a purge that ran beside the replay counts too.
  const PurgedInWindow purged = purged_in_window(context.session, window.value(), router,
                                                 request.topic, request.aggregate_type);

  const double seconds = std::chrono::duration<double>(steady_clock::now() - started).count();
  Value by_topic = Value::object();
  for (const auto& [topic, count] : tally.by_topic)
    by_topic.set(topic, count);
  Value answer =
      Value::object()
          .set("replay_id", request.dry_run ? Value() : Value(id))
          .set("dry_run", request.dry_run)
          .set("since", iso_utc(window.value().since))
          .set("until", iso_utc(window.value().until))
          .set("topic", request.topic ? Value(*request.topic) : Value())
          .set("aggregate_type", request.aggregate_type ? Value(*request.aggregate_type) : Value())
          .set(request.dry_run ? "would_replay" : "replayed", tally.events)
          .set("by_topic", std::move(by_topic));
  if (!request.dry_run) {
    answer.set("delivered", tally.delivered)
        .set("failed", tally.failed_count)
        .set("failed_events", failures_value(tally.failed))
        .set("rate_limit", request.rate == 0 ? Value("none") : Value(request.rate))
        .set("paced_seconds", Value::seconds(producer->paced_seconds()));
  }
  answer.set("unroutable", tally.unroutable)
      .set("unroutable_events", failures_value(tally.unroutable_events))
      .set("purged_during_replay", static_cast<int64_t>(tally.gone))
      .set("version_inversions", tally.inversions)
      .set("purged_in_window", purged_value(purged))
      .set("seconds", Value::seconds(seconds));
  if (!tally.resume_since.empty()) {
    std::string resume = "outboxctl replay --since " + tally.resume_since + " --until " +
                         iso_utc(window.value().until);
    if (request.topic) resume += " --topic " + shell_word(*request.topic);
    if (request.aggregate_type)
      resume += " --aggregate-type " + shell_word(*request.aggregate_type);
    resume += " --rate " + std::to_string(request.rate) + " --batch-size " +
              std::to_string(request.batch_size);
    answer.set("resume_with", resume);
    if (!context.json) print_answer(context, answer);
    return refuse(context, std::move(answer),
                  "outboxctl replay: stopped after " + std::to_string(tally.failed_count) +
                      " events failed (first: " + tally.failed.front().event_id + ": " +
                      tally.failed.front().error + "); everything before " + tally.resume_since +
                      " was delivered; go on with: " + resume);
  }
  print_answer(context, answer);
  return 0;
}

}  // namespace outbox::ctl
