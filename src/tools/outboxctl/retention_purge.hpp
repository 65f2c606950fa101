#pragma once

#include <cstdint>
#include <string>

#include "config/duration.hpp"
#include "mysql/mysql_session.hpp"

// The retention deletes behind `outboxctl purge`. Rows are found along an index in key order
// and deleted by primary key in small batches, one short transaction each: a batch locks only
// the rows it deletes, and only until its commit, so writers, relays and consumers never wait
// behind a purge. Every cutoff comes from the database clock.
namespace outbox::ctl {

struct PurgeResult {
  std::string cutoff;  // rows older than this ("2024-05-01T10:00:00.000000Z") qualify
  int64_t rows = 0;    // deleted (or, on a dry run, that would be)
  int64_t batches = 0;
  // Outbox purges only: "" when every PUBLISHED batch added its counts to outbox_purge_log
  // (a dry run: would have); else why the log is not written, for the answer.
  std::string purge_log;
};

// PUBLISHED events published before now - window and SKIPPED events created before it
// (a skip records no time of its own). A dry run only counts them. Each batch of PUBLISHED
// events adds, in its own transaction, how many it deleted per hour of created_at and per
// (aggregate_type, event_type) to outbox_purge_log, so that a replay can say how many events
// of its window it could not send; without that table (or its grant) the purge runs unlogged
// and PurgeResult::purge_log says so.
// `table`: the outbox table (mysql.table), quoted.
PurgeResult purge_outbox_events(MysqlSession& session, const std::string& table, Micros window,
                                int batch_size, bool dry_run);

// consumed_event rows consumed before now - window. A dry run only counts them.
PurgeResult purge_consumed_events(MysqlSession& session, Micros window, int batch_size,
                                  bool dry_run);

}  // namespace outbox::ctl
