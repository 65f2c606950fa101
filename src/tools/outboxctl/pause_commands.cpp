// outboxctl pause / resume / paused. A pause is a row of outbox_pause; every relay reads the
// table once a second and holds the paused events it claims (RETRY, no recheck, no attempt
// counted, last_error "paused by operator: ..."), so the answer can only say "obeyed within
// about a second", never "obeyed now". resume deletes the row and wakes the held events itself,
// so they flow even when no relay saw the pause end (every relay also wakes them when it sees
// it end, and when it starts).
#include "pause_commands.hpp"

#include <cppconn/exception.h>
#include <iostream>
#include <optional>

#include "mysql/mysql_error.hpp"
#include "operator/operator_pause_sql.hpp"
#include "operator/operator_pauses.hpp"
#include "operator_identity.hpp"

namespace outbox::ctl {
namespace {

constexpr int kDuplicateKey = 1062;
constexpr size_t kMaxName = 249;    // Kafka's longest topic name; outbox_pause.name
constexpr size_t kMaxReason = 512;  // outbox_pause.reason

struct PauseTarget {
  OperatorPause::Kind kind = OperatorPause::Kind::kTopic;
  std::string name;
  std::string reason;
};

bool legal_topic(const std::string& name) {
  if (name.empty() || name.size() > kMaxName || name == "." || name == "..") return false;
  for (const char c : name) {
    const bool legal = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '.' || c == '_' || c == '-';
    if (!legal) return false;
  }
  return true;
}

// TOPIC | --aggregate-type TYPE, and --reason TEXT when `with_reason`. An error message, or
// the target.
struct ParsedTarget {
  std::optional<PauseTarget> target;
  std::string problem;  // set when the arguments are wrong: 64
};

ParsedTarget parse_target(const std::vector<std::string>& args, bool with_reason) {
  PauseTarget target;
  bool named = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if ((arg == "--aggregate-type" || (with_reason && arg == "--reason")) && i + 1 < args.size()) {
      if (arg == "--reason") {
        target.reason = args[++i];
        continue;
      }
      if (named) return {std::nullopt, "name one topic or one --aggregate-type"};
      target.kind = OperatorPause::Kind::kAggregateType;
      target.name = args[++i];
      named = true;
    } else if (arg.rfind("--", 0) == 0) {
      return {std::nullopt, "unknown option " + arg};
    } else {
      if (named) return {std::nullopt, "name one topic or one --aggregate-type"};
      target.name = arg;
      named = true;
    }
  }
  if (!named) return {std::nullopt, "name a topic or an --aggregate-type"};
  if (target.kind == OperatorPause::Kind::kTopic && !legal_topic(target.name)) {
    return {std::nullopt, "'" + target.name +
                              "' is not a Kafka topic name (1-249 of a-z A-Z 0-9 . _ -); an "
                              "aggregate type is named with --aggregate-type"};
  }
  if (target.name.empty() || target.name.size() > kMaxName)
    return {std::nullopt, "an aggregate type of 1-249 characters"};
  if (target.reason.size() > kMaxReason) return {std::nullopt, "--reason holds at most 512 bytes"};
  return {std::move(target), ""};
}

Value pause_value(const OperatorPause& pause) {
  return Value::object()
      .set("kind", kind_word(pause.kind))
      .set("name", pause.name)
      .set("reason", pause.reason)
      .set("paused_by", pause.paused_by)
      .set("paused_at", pause.paused_at + " UTC");
}

std::optional<OperatorPause> find_pause(MysqlSession& session, OperatorPause::Kind kind,
                                        const std::string& name) {
  for (OperatorPause& pause : pause_sql::select_pauses(session)) {
    if (pause.kind == kind && pause.name == name) return std::move(pause);
  }
  return std::nullopt;
}

int refuse_missing_table(CommandContext& context) {
  return refuse(context, Value::object(),
                "table outbox_pause does not exist: apply sql/014_outbox_pause.sql "
                "(scripts/apply-migrations.sh)");
}

int usage_problem(const std::string& problem) {
  std::cerr << problem << "\n";
  return 64;
}

}  // namespace

Value operator_pauses_answer(CommandContext& context) {
  std::vector<OperatorPause> pauses;
  try {
    pauses = pause_sql::select_pauses(context.session);
  } catch (const sql::SQLException& e) {
    context.session.rollback_quietly();
    if (e.getErrorCode() == kNoSuchTableError) return {};
    throw;
  }
  Value list = Value::list();
  for (const OperatorPause& pause : pauses) {
    const pause_sql::HeldRows held = pause_sql::count_held(context.session, context.outbox_table,
                                                           held_prefix(pause.kind, pause.name));
    Value entry = pause_value(pause);
    entry.set("held_events", static_cast<int64_t>(held.events));
    entry.set("oldest_held_age_seconds",
              held.oldest_age_us < 0
                  ? Value()
                  : Value::seconds(static_cast<double>(held.oldest_age_us) / 1e6));
    list.add(std::move(entry));
  }
  const long long ended = pause_sql::count_held_for_ended(context.session, context.outbox_table);
  context.session.commit();
  return Value::object()
      .set("pauses", std::move(list))
      .set("held_for_ended_pauses", static_cast<int64_t>(ended));
}

int pause(CommandContext& context) {
  const ParsedTarget parsed = parse_target(context.args, true);
  if (!parsed.target) return usage_problem(parsed.problem);
  const PauseTarget& target = *parsed.target;
  bool already = false;
  try {
    sql::PreparedStatement& insert = context.session.prepare(
        std::string("INSERT INTO ") + pause_sql::kPauseTable +
        " (kind, name, reason, paused_by, paused_at) VALUES (?, ?, ?, LEFT(CONCAT(?, ' as ', "
        "CURRENT_USER()), 255), CURRENT_TIMESTAMP(6))");
    insert.setString(1, kind_word(target.kind));
    insert.setString(2, target.name);
    insert.setString(3, target.reason);
    // Who paused: the operator (the statement adds the database account, CURRENT_USER()).
    insert.setString(4, operator_name());
    insert.executeUpdate();
    context.session.commit();
  } catch (const sql::SQLException& e) {
    context.session.rollback_quietly();
    if (e.getErrorCode() == kNoSuchTableError) return refuse_missing_table(context);
    if (e.getErrorCode() != kDuplicateKey) throw;
    already = true;  // the pause in force stays as it is, its reason too
  }
  const std::optional<OperatorPause> pause = find_pause(context.session, target.kind, target.name);
  context.session.commit();
  if (!pause) {
    return refuse(context, Value::object(),
                  std::string(kind_word(target.kind)) + " " + target.name +
                      " was resumed by someone else meanwhile");
  }
  print_answer(context, Value::object()
                            .set("paused", pause_value(*pause))
                            .set("already_paused", already)
                            .set("note",
                                 "every relay holds its events within about a second (they wait as "
                                 "RETRY, no attempt counted); outboxctl resume releases them"));
  return 0;
}

int resume(CommandContext& context) {
  const ParsedTarget parsed = parse_target(context.args, false);
  if (!parsed.target) return usage_problem(parsed.problem);
  const PauseTarget& target = *parsed.target;
  std::optional<OperatorPause> ended;
  size_t woken = 0;
  try {
    ended = find_pause(context.session, target.kind, target.name);
    sql::PreparedStatement& remove = context.session.prepare(
        std::string("DELETE FROM ") + pause_sql::kPauseTable + " WHERE kind = ? AND name = ?");
    remove.setString(1, kind_word(target.kind));
    remove.setString(2, target.name);
    remove.executeUpdate();
    context.session.commit();
    // After the commit: a relay that still holds with the pause it read last wakes what it
    // held itself once it sees the end (or this wake finds it).
    woken = pause_sql::wake_ended(context.session, context.outbox_table);
  } catch (const sql::SQLException& e) {
    context.session.rollback_quietly();
    if (e.getErrorCode() == kNoSuchTableError) return refuse_missing_table(context);
    throw;
  }
  print_answer(context, Value::object()
                            .set("resumed", ended ? pause_value(*ended) : Value())
                            .set("was_paused", ended.has_value())
                            .set("woken_events", static_cast<int64_t>(woken)));
  return 0;
}

int paused(CommandContext& context) {
  if (!context.args.empty()) return 64;
  Value answer = operator_pauses_answer(context);
  if (answer.is_null()) return refuse_missing_table(context);
  print_answer(context, answer);
  return 0;
}

}  // namespace outbox::ctl
