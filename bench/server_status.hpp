#pragma once

#include <functional>
#include <map>
#include <string>
#include <utility>

#include "mysql/mysql_session.hpp"

namespace outbox::bench {

// MariaDB's statement counters now (SHOW GLOBAL STATUS: Questions, Com_stmt_execute,
// Com_commit, Com_select, Com_rollback), by name. The SHOW itself counts once in Questions.
std::map<std::string, double> statement_counters(MysqlSession& session);

// The size of the server's binary logs now, in bytes (SHOW BINARY LOGS: the account needs
// REPLICATION CLIENT, MariaDB's BINLOG MONITOR); its growth over a window is what that window
// logged, to be shipped to and applied by every replica.
double binary_log_bytes(MysqlSession& session);

// innodb_flush_log_at_trx_commit and sync_binlog as the server runs now.
std::pair<int, int> durability(MysqlSession& session);

// Sets the server's durability settings (both are dynamic: no restart) and returns them as
// they read back: "innodb_flush_log_at_trx_commit=1, sync_binlog=1, binlog_format=ROW".
std::string set_durability(MysqlSession& session, int flush_log_at_trx_commit, int sync_binlog);

// Runs `body` in the durable profile (innodb_flush_log_at_trx_commit=1, sync_binlog=1) and
// then the tuned one (2, 0), with the profile's name and its settings as they read back, and
// sets the server back as it was.
void for_each_durability_profile(
    MysqlSession& session,
    const std::function<void(const std::string& name, const std::string& settings)>& body);

}  // namespace outbox::bench
