#include "command.hpp"

#include <iostream>

#include "backlog_command.hpp"
#include "drain_command.hpp"
#include "failed_events.hpp"
#include "lookup_commands.hpp"
#include "pause_commands.hpp"
#include "purge_command.hpp"
#include "replay_command.hpp"

namespace outbox::ctl {

const std::vector<Command>& commands() {
  static const std::vector<Command> all{
      {"event", "<event_id>",
       "an event's state: outbox status, lease, attempts, last error, times, its order", event},
      {"consumed", "<consumer> <event_id>",
       "whether a consumer took an event into effect: consumed_event row, notification_job",
       consumed},
      {"order", "<tenant_id> <request_id>",
       "an order by its business key, its events and their effects", order},
      {"backlog", "",
       "events by status, oldest pending and FAILED ages, aggregates blocked by FAILED events, "
       "events held for paused Kafka partitions",
       backlog},
      {"drain", "[--wait [--timeout 5m]]",
       "how to roll a relay back safely, and whether any lease is still live", drain},
      {"purge", "[--dry-run] [--published-after D] [--consumed-after D] [--batch-size N]",
       "delete PUBLISHED/SKIPPED events and consumed_event rows older than their retention", purge},
      {"pause", "<topic> | --aggregate-type <type> [--reason TEXT]",
       "hold a topic's (or an aggregate type's) events in every relay until resumed; the rest "
       "flow",
       pause},
      {"resume", "<topic> | --aggregate-type <type>",
       "end a pause and release its held events, in order", resume},
      {"paused", "", "the pauses in force, who made them and why, and the events each holds",
       paused},
      {"replay",
       "--since T [--until T] [--topic X | --aggregate-type X] [--dry-run] [--rate N] "
       "[--batch-size N]",
       "publish the PUBLISHED events of a window again, as first published plus the header "
       "outbox_replay, in per-aggregate order, paced (1000/s by default)",
       replay},
      {"requeue", "<event_id> | --all-failed",
       "put FAILED events back to PENDING, attempts and lease expiries reset", requeue},
      {"skip", "<event_id>",
       "give up on a FAILED event (SKIPPED); in per-aggregate mode its aggregate moves on", skip},
  };
  return all;
}

void print_answer(const CommandContext& context, const Value& answer) {
  if (context.json) {
    std::cout << answer.json() << "\n";
  } else {
    std::cout << answer.text_lines();
  }
}

int refuse(const CommandContext& context, Value answer, const std::string& message) {
  if (context.json) {
    answer.set("error", message);
    std::cout << answer.json() << "\n";
  } else {
    std::cerr << message << "\n";
  }
  return 1;
}

}  // namespace outbox::ctl
