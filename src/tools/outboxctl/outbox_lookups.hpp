#pragma once

#include <cstdint>
#include <string>

#include "answer_value.hpp"
#include "mysql/mysql_session.hpp"

// The seed's query entry points, by stable id, shared by the event, consumed and order
// commands: an event's state, who consumed it and with what effect, and the order it belongs
// to. Each lookup reads by a primary or unique key (or a short index range), never a scan.
namespace outbox::ctl {

// The outbox table the lookups read (mysql.table) and whether it has the trace context
// columns of sql/012 (kafka.trace_context).
struct OutboxTable {
  std::string quoted;
  bool traced = true;
};

// The event's outbox row as an object, or null when no event has that id.
Value find_event(MysqlSession& session, const OutboxTable& table, const std::string& event_id);

// The events of one order: its acceptance event and every event of its aggregate, oldest
// version first (at most kMaxOrderEvents).
inline constexpr int kMaxOrderEvents = 1000;
Value find_order_events(MysqlSession& session, const OutboxTable& table,
                        const std::string& acceptance_event_id, const std::string& aggregate_type,
                        const std::string& aggregate_id);

// Every consumer that took the event into effect, as [{consumer, consumed_at, id}].
Value find_consumers(MysqlSession& session, const std::string& event_id);

// One consumer's consumed_event row ({consumer, consumed_at, id}), or null.
Value find_consumption(MysqlSession& session, const std::string& consumer,
                       const std::string& event_id);

// The notification_job the event caused (the example consumer's local effect), or null.
Value find_notification_job(MysqlSession& session, const std::string& event_id);

// The order whose acceptance_event_id is the event, or null (also when the schema has no
// orders table: not every outbox belongs to this project's example orders).
Value find_order_by_acceptance(MysqlSession& session, const std::string& event_id);

// The order with this business key, or null.
Value find_order_by_request(MysqlSession& session, int64_t tenant_id,
                            const std::string& request_id);

}  // namespace outbox::ctl
