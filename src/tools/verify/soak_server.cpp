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

// The last lines of a file ("(empty)" also when it cannot be read).
std::string file_tail(const std::string& path) {
  const std::string text = harness::read_text_file(path);
  size_t start = text.size();
  for (int seen = 0; start > 0 && seen <= 8;) {
    if (text[--start] == '\n') ++seen;
  }
  return text.empty() ? "(empty)" : text.substr(start);
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
    // The script's own logs say why when its output does not (mariadb-install-db writes only
    // to install.log).
    return Error{"starting MariaDB in " + dir_ + " failed (" + script_ + " exited " +
                 std::to_string(result.status) + "): " + result.out + result.err +
                 "; install.log ends: " + file_tail(dir_ + "/install.log") +
                 "; error.log ends: " + file_tail(dir_ + "/error.log")};
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
