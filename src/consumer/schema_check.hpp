#pragma once

#include <string>

#include "mysql/mysql_session.hpp"

namespace outbox::consumer {

enum class SchemaState {
  kReady,
  kNotYet,  // consumed_event does not exist (yet): migrations may still be running; wait
  kWrong,   // it exists without the constraint the duplicate classifier depends on: an
            // operator must fix it (every redelivery would be a failure forever)
};

struct SchemaCheck {
  SchemaState state = SchemaState::kReady;
  std::string message;
};

// consumed_event must carry UNIQUE uq_consumed_event_identity on exactly (consumer_name,
// event_id): a duplicate is recognised by that name, and only by it. Throws sql::SQLException.
SchemaCheck check_consumed_event_schema(MysqlSession& session);

}  // namespace outbox::consumer
