// outboxctl order <tenant_id> <request_id>: from the business key to the final effects: the
// order row, its events (its acceptance event and every event of its aggregate) with their
// outbox state, and for each event the consumers that took it into effect and the
// notification_job it caused.
#include <charconv>
#include <iostream>

#include "lookup_commands.hpp"
#include "outbox_lookups.hpp"

namespace outbox::ctl {
namespace {

// The aggregate type this project's writers give orders; used only when the order's own
// acceptance event, which names it, is gone (deleted by retention).
constexpr const char* kOrderAggregateType = "order";

}  // namespace

int order(CommandContext& context) {
  if (context.args.size() != 2) return 64;
  const std::string& tenant_text = context.args[0];
  const std::string& request_id = context.args[1];
  int64_t tenant_id = 0;
  const auto [end, ec] =
      std::from_chars(tenant_text.data(), tenant_text.data() + tenant_text.size(), tenant_id);
  if (ec != std::errc() || end != tenant_text.data() + tenant_text.size()) {
    std::cerr << "outboxctl order: tenant_id must be an integer, got \"" << tenant_text << "\"\n";
    return 64;
  }
  TransactionScope read(context.session);
  Value found = find_order_by_request(context.session, tenant_id, request_id);
  if (found.is_null()) {
    return refuse(
        context, Value::object().set("tenant_id", tenant_id).set("request_id", request_id),
        "order: no order with tenant_id " + tenant_text + " and request_id " + request_id);
  }
  const std::string acceptance_event_id = found.at("acceptance_event_id").text();
  const Value acceptance_event =
      find_event(context.session, lookup_table(context), acceptance_event_id);
  const std::string aggregate_type = acceptance_event.is_null()
                                         ? kOrderAggregateType
                                         : acceptance_event.at("aggregate_type").text();
  const std::string aggregate_id = found.at("id").text();
  const Value events = find_order_events(context.session, lookup_table(context),
                                         acceptance_event_id, aggregate_type, aggregate_id);
  Value with_effects = Value::list();
  for (Value event : events.items()) {
    const std::string event_id = event.at("event_id").text();
    event.set("consumed_by", find_consumers(context.session, event_id))
        .set("notification_job", find_notification_job(context.session, event_id));
    with_effects.add(std::move(event));
  }
  print_answer(context, Value::object()
                            .set("order", std::move(found))
                            .set("aggregate", aggregate_type + "/" + aggregate_id)
                            .set("acceptance_event_found", !acceptance_event.is_null())
                            .set("events_truncated",
                                 events.items().size() >= static_cast<size_t>(kMaxOrderEvents))
                            .set("events", std::move(with_effects)));
  return 0;
}

}  // namespace outbox::ctl
