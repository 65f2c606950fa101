#pragma once

#include <string>

#include "config/duration.hpp"
#include "mysql/mysql_tls.hpp"

namespace outbox {

// Where and how to reach MySQL. The password is held here but never printed: every
// printer of config goes through redacted().
struct MysqlEndpoint {
  std::string host = "127.0.0.1";
  int port = 3306;
  std::string socket;  // a unix socket path; when set it wins over host/port
  std::string user;
  std::string password;
  // When set, the password is read from this file again at every connection, so a rotated
  // password (file rewritten, account altered) is used from the next reconnect on; `password`
  // then holds what the file said when the config was loaded.
  std::string password_file;
  std::string database;
  Micros connect_timeout = std::chrono::seconds(5);
  // Bounds every statement's wait for the server, so a hung server cannot hold a worker
  // (or a drain) forever.
  Micros read_timeout = std::chrono::seconds(30);
  MysqlTls tls;

  // "user@host:port/database" for log lines.
  std::string describe() const;
};

}  // namespace outbox
