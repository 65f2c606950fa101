#pragma once

#include <condition_variable>
#include <mutex>
#include <stop_token>
#include <string>
#include <thread>

#include "config/duration.hpp"
#include "mysql/mysql_endpoint.hpp"
#include "operator/operator_pauses.hpp"

namespace outbox {

// Reads the operators' pauses (outbox_pause) once a second on a session of its own into
// `pauses`, which the workers consult for every event they claim: a pause made with outboxctl
// is obeyed by every relay of the fleet within about a second. Logs each pause that begins or
// ends, and when one ends (or the relay starts) wakes the rows held for pauses no longer in
// force (pause_sql::wake_ended).
//
// Without the table (sql/014_outbox_pause.sql not applied) there is nothing to obey: said once,
// and looked for again every minute.
class PauseWatcher {
 public:
  PauseWatcher(MysqlEndpoint endpoint, std::string outbox_table, OperatorPauses& pauses,
               Micros interval);
  ~PauseWatcher();
  PauseWatcher(const PauseWatcher&) = delete;
  PauseWatcher& operator=(const PauseWatcher&) = delete;

  // Waits until the pauses were read once (or the table was found missing), so that no worker
  // claims before it knows what is paused. False when `stop` came first.
  bool wait_until_known(const std::stop_token& stop);

 private:
  void run(const std::stop_token& stop);

  MysqlEndpoint endpoint_;
  std::string outbox_table_;
  OperatorPauses& pauses_;
  Micros interval_;
  std::mutex mutex_;
  std::condition_variable_any known_changed_;
  bool known_ = false;
  std::jthread thread_;
};

}  // namespace outbox
