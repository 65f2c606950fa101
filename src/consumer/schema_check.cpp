#include "schema_check.hpp"

#include <memory>

namespace outbox::consumer {

SchemaCheck check_consumed_event_schema(MysqlSession& session) {
  const std::unique_ptr<sql::ResultSet> tables(
      session
          .prepare("SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() "
                   "AND TABLE_NAME = 'consumed_event'")
          .executeQuery());
  tables->next();
  if (tables->getInt(1) == 0) {
    session.rollback_quietly();
    return {SchemaState::kNotYet,
            "table consumed_event does not exist (apply the migrations in sql/ in order)"};
  }
  const std::unique_ptr<sql::ResultSet> index(
      session
          .prepare("SELECT MAX(NON_UNIQUE), GROUP_CONCAT(COLUMN_NAME ORDER BY SEQ_IN_INDEX) "
                   "FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND "
                   "TABLE_NAME = 'consumed_event' AND INDEX_NAME = 'uq_consumed_event_identity'")
          .executeQuery());
  index->next();
  const bool exists = !index->isNull(2);
  const bool unique = exists && index->getInt(1) == 0;
  const std::string columns = exists ? std::string(index->getString(2)) : "";
  session.rollback_quietly();
  if (!unique || columns != "consumer_name,event_id") {
    return {SchemaState::kWrong,
            "consumed_event needs CONSTRAINT uq_consumed_event_identity UNIQUE (consumer_name, "
            "event_id) (found: " +
                (exists ? std::string(unique ? "UNIQUE" : "non-unique") + " (" + columns + ")"
                        : std::string("no such index")) +
                "): duplicates are recognised by that constraint's name only"};
  }
  return {SchemaState::kReady, "consumed_event with uq_consumed_event_identity"};
}

}  // namespace outbox::consumer
