// outboxctl purge: retention. Deletes PUBLISHED (and SKIPPED) events and consumed_event rows
// older than their windows (retention.* in the config, or the flags), and refuses any window
// shorter than retention.broker_redelivery_window: an event Kafka delivers again must still
// find its consumed_event row (or the consumer applies it twice) and its outbox row (or the
// operator cannot trace it). Off unless a window is set. The PUBLISHED events it deletes are
// counted in outbox_purge_log (per hour of created_at and per aggregate_type and event_type),
// so that a replay can say how many events of its window were purged.
#include <charconv>
#include <iostream>

#include "lease_store/lease_sql.hpp"
#include "purge_command.hpp"
#include "retention_purge.hpp"

namespace outbox::ctl {
namespace {

struct PurgeRequest {
  RetentionSettings retention;
  bool dry_run = false;
  std::string overridden;  // the flags that replaced config values, for the refusal message
};

// Applies the flags over the config's retention section; returns 64 on bad usage, else 0.
int parse_flags(const std::vector<std::string>& args, PurgeRequest& request) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& flag = args[i];
    if (flag == "--dry-run") {
      request.dry_run = true;
      continue;
    }
    if (i + 1 >= args.size()) return 64;
    const std::string& value = args[++i];
    if (flag == "--published-after" || flag == "--consumed-after") {
      const std::optional<Micros> window = parse_duration(value);
      if (!window) {
        std::cerr << "outboxctl purge: " << flag << " must be a duration like 30d or 720h, got \""
                  << value << "\"\n";
        return 64;
      }
      (flag == "--published-after" ? request.retention.published_after
                                   : request.retention.consumed_after) = *window;
      request.overridden += ' ';
      request.overridden += flag;
      request.overridden += ' ';
      request.overridden += value;
    } else if (flag == "--batch-size") {
      int size = 0;
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), size);
      const int max = static_cast<int>(lease_sql::kMaxIdList);
      if (ec != std::errc() || end != value.data() + value.size() || size < 1 || size > max) {
        std::cerr << "outboxctl purge: --batch-size must be between 1 and " << max << ", got \""
                  << value << "\"\n";
        return 64;
      }
      request.retention.batch_size = size;
    } else {
      return 64;
    }
  }
  return 0;
}

// purge_log only when outbox_purge_log is not written: said once per run, not per batch.
Value table_answer(const std::optional<Micros>& window, const PurgeResult& result, bool dry_run) {
  if (!window) return {};
  Value answer = Value::object()
                     .set("window", format_duration(*window))
                     .set("cutoff", result.cutoff)
                     .set(dry_run ? "would_delete" : "deleted", result.rows)
                     .set("batches", result.batches);
  if (!result.purge_log.empty()) answer.set("purge_log", result.purge_log);
  return answer;
}

}  // namespace

int purge(CommandContext& context) {
  PurgeRequest request;
  request.retention = context.config.retention;
  if (const int usage = parse_flags(context.args, request); usage != 0) return usage;
  const RetentionSettings& retention = request.retention;
  const std::vector<RetentionProblem> problems = retention_problems(retention);
  if (!problems.empty()) {
    std::string message = "outboxctl purge: refused" +
                          (request.overridden.empty() ? "" : " (with" + request.overridden + ")") +
                          ":";
    for (const RetentionProblem& problem : problems)
      message += "\n  " + problem.key + ": " + problem.what;
    return refuse(context, Value::object().set("dry_run", request.dry_run), message);
  }

  PurgeResult events;
  PurgeResult consumed;
  if (retention.published_after) {
    events = purge_outbox_events(context.session, context.outbox_table, *retention.published_after,
                                 retention.batch_size, request.dry_run);
  }
  if (retention.consumed_after) {
    consumed = purge_consumed_events(context.session, *retention.consumed_after,
                                     retention.batch_size, request.dry_run);
  }
  print_answer(context, Value::object()
                            .set("dry_run", request.dry_run)
                            .set("outbox_event",
                                 table_answer(retention.published_after, events, request.dry_run))
                            .set("consumed_event", table_answer(retention.consumed_after, consumed,
                                                                request.dry_run)));
  if (!retention.published_after && !retention.consumed_after && !context.json) {
    std::cout << "purge is off: set retention.published_after and/or retention.consumed_after "
                 "(or pass --published-after / --consumed-after)\n";
  }
  return 0;
}

}  // namespace outbox::ctl
