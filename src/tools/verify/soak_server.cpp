#include "soak_server.hpp"

#include <mutex>
#include <regex>
#include <set>
#include <stdexcept>

#include "harness/child_process.hpp"
#include "harness/temp_dir.hpp"

namespace outbox::verify {
namespace {

std::mutex g_servers_mutex;
std::set<std::pair<std::string, std::string>> g_servers;  // (script, dir) of running servers

std::string env_value(const std::string& env, const std::string& name) {
  const std::regex line("export " + name + "=([^\n]*)");
  std::smatch match;
  return std::regex_search(env, match, line) ? std::string(match[1]) : "";
}

harness::CommandResult run_script(const std::string& script, const std::string& verb,
                                  const std::string& dir, const std::string& port) {
  // A small buffer pool: the soak's data fits, and the machine may be shared.
  std::vector<std::string> argv{"env", "OUTBOX_DB_BUFFER_POOL=256M"};
  if (!port.empty()) argv.push_back("OUTBOX_DB_PORT=" + port);
  argv.insert(argv.end(), {script, verb, dir});
  return harness::run_command(argv);
}

}  // namespace

SoakServer::SoakServer(std::string script, std::string dir)
    : script_(std::move(script)), dir_(std::move(dir)) {
  const Status started = start();
  if (!started) throw std::runtime_error(started.error().message);
}

SoakServer::~SoakServer() {
  run_script(script_, "stop", dir_, "");
  const std::lock_guard lock(g_servers_mutex);
  g_servers.erase({script_, dir_});
}

Status SoakServer::start() {
  const std::string port = endpoint_.port != 3306 ? std::to_string(endpoint_.port) : "";
  const harness::CommandResult result = run_script(script_, "start", dir_, port);
  if (result.status != 0) {
    return Error{"starting MariaDB in " + dir_ + " failed: " + result.out + result.err};
  }
  {
    const std::lock_guard lock(g_servers_mutex);
    g_servers.insert({script_, dir_});
  }
  const std::string env = harness::read_text_file(dir_ + "/env");
  endpoint_.host = env_value(env, "OUTBOX_MYSQL_HOST");
  endpoint_.port = std::stoi(env_value(env, "OUTBOX_MYSQL_PORT"));
  endpoint_.user = env_value(env, "OUTBOX_MYSQL_USER");
  endpoint_.password = env_value(env, "OUTBOX_MYSQL_PASSWORD");
  if (!port.empty() && std::to_string(endpoint_.port) != port) {
    return Error{"MariaDB came back on port " + std::to_string(endpoint_.port) + ", not " + port};
  }
  return ok_status();
}

Status SoakServer::restart() {
  // The script's start stops a running server first (SIGTERM: a clean shutdown).
  return start();
}

void stop_all_soak_servers() {
  const std::lock_guard lock(g_servers_mutex);
  for (const auto& [script, dir] : g_servers)
    run_script(script, "stop", dir, "");
}

}  // namespace outbox::verify
