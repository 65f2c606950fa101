#pragma once

#include <map>
#include <mutex>
#include <stop_token>
#include <string>
#include <thread>

#include "config/duration.hpp"
#include "lease_store/lease_sql.hpp"
#include "mysql/mysql_endpoint.hpp"
#include "observe/health_board.hpp"

namespace outbox {

// The outbox as metrics see it: rows waiting by status and how old the oldest are.
struct BacklogSnapshot {
  bool valid = false;                     // false until the first query succeeded
  std::map<std::string, long> by_status;  // PENDING, PUBLISHING, RETRY, BLOCKED, FAILED
  double oldest_unpublished_age_seconds = 0;
  double oldest_failed_age_seconds = 0;
  long blocked_aggregates = 0;  // aggregates held back by a FAILED event (per_aggregate mode)
};

// Queries the backlog every `interval` on a session of its own, so that a scrape never waits
// for the database. Each query counts the waiting rows along idx_outbox_pending: its cost
// grows with the backlog (about 0.3 s per million waiting rows here), which is why it runs on
// its own cadence rather than per scrape or per claim.
class BacklogMonitor {
 public:
  // `schema`: the outbox table to count (mysql.table).
  BacklogMonitor(MysqlEndpoint endpoint, lease_sql::Schema schema, Micros interval,
                 Ordering ordering, HealthBoard& health);
  ~BacklogMonitor();
  BacklogMonitor(const BacklogMonitor&) = delete;
  BacklogMonitor& operator=(const BacklogMonitor&) = delete;

  BacklogSnapshot snapshot() const;

 private:
  void run(const std::stop_token& stop);

  MysqlEndpoint endpoint_;
  lease_sql::Schema schema_;
  Micros interval_;
  Ordering ordering_;
  HealthBoard& health_;
  mutable std::mutex mutex_;
  BacklogSnapshot snapshot_;
  std::jthread thread_;
};

}  // namespace outbox
