#include "relay_process.hpp"

#include <signal.h>
#include <catch2/catch.hpp>

#include <chrono>
#include <stdexcept>
#include <thread>

#include "test_kafka.hpp"

namespace outbox::test {

std::string relay_config_yaml(const TestDatabase& db, const std::string& bootstrap,
                              const RelayTestConfig& settings) {
  MysqlEndpoint endpoint = db.endpoint();
  if (settings.mysql_port != 0) endpoint.port = settings.mysql_port;
  std::string password = "password: ${OUTBOX_MYSQL_PASSWORD}";
  if (!settings.mysql_user.empty()) {
    endpoint.user = settings.mysql_user;
    password = settings.mysql_password_file.empty()
                   ? "password: " + settings.mysql_password
                   : "password_file: " + settings.mysql_password_file;
  }
  return harness::relay_config_yaml(
      harness::mysql_section_yaml(endpoint, password) + settings.extra_mysql_settings, bootstrap,
      settings);
}

RelayProcess::RelayProcess(const TestDatabase& db, const std::string& bootstrap,
                           const RelayTestConfig& settings,
                           const std::map<std::string, std::string>& extra_env)
    : daemon_(relay_binary(), dir_.path(), "relay", relay_config_yaml(db, bootstrap, settings),
              extra_env) {}

std::map<std::string, int> deliveries_by_event(const std::string& bootstrap,
                                               const std::string& topic) {
  std::map<std::string, int> count;
  for (const auto& record : read_topic(bootstrap, topic))
    ++count[record.headers.at("event_id")];
  return count;
}

void stop_gracefully(RelayProcess& relay) {
  relay.process().signal(SIGTERM);
  const auto status = relay.process().wait_exit(std::chrono::seconds(60));
  INFO(relay.log());
  REQUIRE(status.has_value());
  CHECK(*status == 0);
}

int RelayProcess::metrics_port() const {
  const std::string marker = "metrics and health on http://127.0.0.1:";
  for (int i = 0; i < 1000; ++i) {
    const std::string text = log();
    const size_t at = text.find(marker);
    if (at != std::string::npos) return std::stoi(text.substr(at + marker.size()));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  throw std::runtime_error("the relay did not log its metrics port:\n" + log());
}

bool logged(const RelayProcess& relay, const std::string& text) {
  return relay.log().find(text) != std::string::npos;
}

std::string logged_claimant(const RelayProcess& relay) {
  const std::string marker = "outbox-relay starting: claimant ";
  const std::string text = relay.log();
  const size_t at = text.find(marker);
  if (at == std::string::npos) throw std::runtime_error("the relay did not log its claimant");
  const size_t start = at + marker.size();
  const size_t end = text.find(',', start);
  if (end == std::string::npos) throw std::runtime_error("the relay's start line ends early");
  return text.substr(start, end - start);
}

CommandResult run_outboxctl(const std::string& config_file, std::vector<std::string> args) {
  args.insert(args.begin(), {outboxctl_binary(), "--config", config_file});
  return run_command(args);
}

Outboxctl::Outboxctl(const TestDatabase& db, const std::string& extra_yaml,
                     const RelayTestConfig& settings)
    : config_file_(
          dir_.write("relay.yaml", relay_config_yaml(db, "127.0.0.1:9", settings) + extra_yaml)) {}

CommandResult Outboxctl::run(std::vector<std::string> args) const {
  return run_outboxctl(config_file_, std::move(args));
}

bool is_json(const std::string& text) {
  return run_command({"jq", "-e", "-s", "length == 1"}, text).status == 0;
}

std::string jq(const std::string& filter, const std::string& json_text) {
  std::string out = run_command({"jq", "-r", filter}, json_text).out;
  if (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

}  // namespace outbox::test
