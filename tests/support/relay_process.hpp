#pragma once

#include <map>
#include <memory>
#include <string>

#include "child_process.hpp"
#include "harness/daemon_process.hpp"
#include "harness/service_configs.hpp"
#include "test_database.hpp"
#include "test_env.hpp"

namespace outbox::test {

// Settings of a relay config file written for a test.
struct RelayTestConfig : harness::RelayConfigSettings {
  std::string mysql_user;            // empty: the test server's account (OUTBOX_MYSQL_USER)
  std::string mysql_password;        // with mysql_user
  std::string mysql_password_file;   // with mysql_user, instead of mysql_password
  std::string extra_mysql_settings;  // YAML lines indented under mysql: (e.g. "  table: t\n")
  int mysql_port = 0;                // 0: the test server's; else e.g. a TcpProxy's in front of it
};

std::string relay_config_yaml(const TestDatabase& db, const std::string& bootstrap,
                              const RelayTestConfig& settings);

// An outbox-relay process with its own config file and log.
class RelayProcess {
 public:
  // extra_env: e.g. harness::failpoint_environment(...).
  RelayProcess(const TestDatabase& db, const std::string& bootstrap,
               const RelayTestConfig& settings,
               const std::map<std::string, std::string>& extra_env = {});
  ChildProcess& process() { return daemon_.process(); }
  std::string log() const { return daemon_.log(); }
  // Occurrences of `text` in the log.
  int count(const std::string& text) const { return daemon_.count(text); }
  const std::string& config_file() const { return daemon_.config_file(); }
  // The port of /metrics, /healthz and /readyz (the relay listens on an ephemeral port).
  int metrics_port() const;

 private:
  TempDir dir_;
  harness::DaemonProcess daemon_;
};

// Event id -> how many times it is on `topic`, read with kcat.
std::map<std::string, int> deliveries_by_event(const std::string& bootstrap,
                                               const std::string& topic);

// SIGTERM, then the exit status must be 0 (the drain path).
void stop_gracefully(RelayProcess& relay);

bool logged(const RelayProcess& relay, const std::string& text);

// The claimant id the relay logged at its start ("outbox-relay starting: claimant <id>, ..."):
// the prefix of every lease_owner and published_by it writes, "<instance id>/<nonce>".
std::string logged_claimant(const RelayProcess& relay);

// outboxctl --config config_file args...
CommandResult run_outboxctl(const std::string& config_file, std::vector<std::string> args);

// outboxctl with a config file of its own for db: a relay test config (unreachable broker:
// outboxctl never talks to Kafka) plus extra_yaml (top-level sections such as retention:).
class Outboxctl {
 public:
  explicit Outboxctl(const TestDatabase& db, const std::string& extra_yaml = "",
                     const RelayTestConfig& settings = {});
  CommandResult run(std::vector<std::string> args) const;
  const std::string& config_file() const { return config_file_; }

 private:
  TempDir dir_;
  std::string config_file_;
};

// Whether text is one valid JSON document (checked by jq, an independent parser).
bool is_json(const std::string& text);
// jq's raw output of filter over the JSON text, without the trailing newline.
std::string jq(const std::string& filter, const std::string& json_text);

}  // namespace outbox::test
