// outboxctl consumed <consumer> <event_id>: whether a consumer took an event into effect (its
// consumed_event row) and the local effect it left (notification_job), with the event's outbox
// status beside it so "published but not consumed" reads at a glance.
#include "lookup_commands.hpp"
#include "outbox_lookups.hpp"

namespace outbox::ctl {

int consumed(CommandContext& context) {
  if (context.args.size() != 2) return 64;
  const std::string& consumer = context.args[0];
  const std::string& event_id = context.args[1];
  TransactionScope read(context.session);
  const Value consumption = find_consumption(context.session, consumer, event_id);
  const Value event = find_event(context.session, lookup_table(context), event_id);
  Value answer = Value::object()
                     .set("consumer", consumer)
                     .set("event_id", event_id)
                     .set("outbox_status", event.at("status"));
  if (consumption.is_null()) {
    const std::string outbox = event.is_null()
                                   ? ", and no outbox event has that id"
                                   : "; its outbox status is " + event.at("status").text();
    return refuse(context, std::move(answer),
                  "event " + event_id + ": not consumed by " + consumer +
                      " (no consumed_event row" + outbox + ")");
  }
  answer.set("consumed_at", consumption.at("consumed_at"))
      .set("consumed_event_id", consumption.at("id"))
      .set("notification_job", find_notification_job(context.session, event_id));
  print_answer(context, answer);
  return 0;
}

}  // namespace outbox::ctl
