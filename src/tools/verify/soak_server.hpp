#pragma once

#include <string>

#include "mysql/mysql_endpoint.hpp"
#include "outcome.hpp"

namespace outbox::verify {

// The soak's own database server (scripts/local-mariadb.sh or local-mysql.sh under `dir`,
// Programs::server_script): the soak restarts it,
// which it must never do to a server others use. Restarts keep the port, so every client
// reconnects to the address in its config.
class SoakServer {
 public:
  // Starts the server (initialising `dir` when new). Throws std::runtime_error when it cannot.
  SoakServer(std::string script, std::string dir);
  // Stops the server.
  ~SoakServer();
  SoakServer(const SoakServer&) = delete;
  SoakServer& operator=(const SoakServer&) = delete;

  // The account the script creates (all privileges), over TCP.
  const MysqlEndpoint& endpoint() const { return endpoint_; }
  const std::string& dir() const { return dir_; }
  // Stops the server (cleanly, as an operator's restart does) and starts it again.
  Status restart();

 private:
  Status start();

  std::string script_;
  std::string dir_;
  MysqlEndpoint endpoint_;
};

// Stops every SoakServer still running (an interrupted soak); safe from another thread.
void stop_all_soak_servers();

}  // namespace outbox::verify
