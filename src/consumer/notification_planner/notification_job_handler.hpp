#pragma once

#include "event_handler.hpp"

namespace outbox::planner {

// The seed's example effect: an ORDER_ACCEPTED event plans one notification job,
//   INSERT INTO notification_job (event_id, order_id, source_version, trace_id, status,
//                                 created_at)
//   VALUES (<event_id>, payload.order_id, payload.version, <trace id of the traceparent
//           header, or NULL>, 'PENDING', CURRENT_TIMESTAMP(6))
// Events of other types need no job (they are recorded as consumed, nothing else). An event
// without an event_type header, or whose payload lacks an integer order_id or version, is
// rejected (dead-lettered): no retry could make it readable. Database errors throw (retried).
consumer::EffectResult plan_notification(MysqlSession& session,
                                         const consumer::ReceivedEvent& event);

}  // namespace outbox::planner
