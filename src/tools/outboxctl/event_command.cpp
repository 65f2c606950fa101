// outboxctl event <event_id>: where one event is in its life (status, lease, attempts, last
// error, times, who published it) and, when it accepted an order, that order's version.
#include "lookup_commands.hpp"
#include "outbox_lookups.hpp"

namespace outbox::ctl {

int event(CommandContext& context) {
  if (context.args.size() != 1) return 64;
  const std::string& event_id = context.args[0];
  TransactionScope read(context.session);  // rolled back at the end: it only reads
  Value answer = find_event(context.session, lookup_table(context), event_id);
  if (answer.is_null()) {
    return refuse(context, Value::object().set("event_id", event_id),
                  "event " + event_id + ": no such event");
  }
  answer.set("order", find_order_by_acceptance(context.session, event_id));
  print_answer(context, answer);
  return 0;
}

}  // namespace outbox::ctl
