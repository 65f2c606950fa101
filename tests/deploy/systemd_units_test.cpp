// The systemd units as shipped: systemd-analyze verify accepts them without a single warning,
// the relay's unit is Type=notify and hardened as documented, its stop timeout covers the
// drain, and the config installed beside it is valid under the environment systemd gives it.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <map>
#include <sstream>

#include "child_process.hpp"
#include "config/duration.hpp"
#include "relay_config.hpp"
#include "relay_config_loading.hpp"
#include "startup_extension.hpp"
#include "test_env.hpp"

using outbox::test::run_command;
using outbox::test::TempDir;

namespace {

std::string unit_path(const std::string& name) {
  return outbox::test::source_dir() + "/systemd/" + name;
}

// A unit's assignments (Key=value; comments and section headers left out). A key may repeat.
std::multimap<std::string, std::string> settings_of(const std::string& name) {
  std::multimap<std::string, std::string> settings;
  std::istringstream lines(outbox::test::read_text_file(unit_path(name)));
  for (std::string line; std::getline(lines, line);) {
    const size_t equals = line.find('=');
    if (line.empty() || line[0] == '#' || line[0] == '[' || equals == std::string::npos) continue;
    settings.emplace(line.substr(0, equals), line.substr(equals + 1));
  }
  return settings;
}

std::string setting(const std::multimap<std::string, std::string>& settings,
                    const std::string& key) {
  REQUIRE(settings.count(key) == 1);
  return settings.find(key)->second;
}

}  // namespace

TEST_CASE("systemd-analyze verify accepts the units without a warning", "[systemd]") {
  // The units run /usr/bin/...; verify checks that those exist, so the copies run this build's.
  TempDir dir;
  std::vector<std::string> args{"systemd-analyze", "verify"};
  for (const char* name : {"outbox-relay.service", "outbox-purge.service", "outbox-purge.timer"}) {
    std::string text = outbox::test::read_text_file(unit_path(name));
    text = outbox::test::replace_all(text, "/usr/bin/outbox-relay", outbox::test::relay_binary());
    text = outbox::test::replace_all(text, "/usr/bin/outboxctl", outbox::test::outboxctl_binary());
    args.push_back(dir.write(name, text));
  }
  const auto verified = run_command(args);
  CHECK(verified.status == 0);
  CHECK(verified.out.empty());
  CHECK(verified.err.empty());
}

TEST_CASE("the relay's unit notifies, watches and is hardened as documented", "[systemd]") {
  const auto unit = settings_of("outbox-relay.service");
  const std::map<std::string, std::string> expected{
      {"Type", "notify"},
      {"NotifyAccess", "main"},
      {"WatchdogSec", "30s"},
      {"ExecReload", "/bin/kill -HUP $MAINPID"},
      {"RestartPreventExitStatus", "78"},
      {"LoadCredential", "mysql-password:/etc/outbox-relay/mysql-password"},
      {"DynamicUser", "yes"},
      {"ProtectSystem", "strict"},
      {"ProtectHome", "yes"},
      {"PrivateTmp", "yes"},
      {"PrivateDevices", "yes"},
      {"ProtectKernelTunables", "yes"},
      {"ProtectKernelModules", "yes"},
      {"ProtectKernelLogs", "yes"},
      {"RestrictAddressFamilies", "AF_INET AF_INET6 AF_UNIX"},
      {"SystemCallFilter", "@system-service"},
      {"CapabilityBoundingSet", ""},
      {"NoNewPrivileges", "yes"},
      {"ExecStart", "/usr/bin/outbox-relay --config /etc/outbox-relay/relay.yaml"},
  };
  for (const auto& [key, value] : expected) {
    INFO(key);
    CHECK(setting(unit, key) == value);
  }
}

TEST_CASE(
    "the installed config is valid with the credentials systemd hands over and the stop "
    "timeout covers its drain",
    "[systemd]") {
  TempDir credentials;
  credentials.write("mysql-password", "relay-secret\n");
  credentials.write("outboxctl-password", "admin-secret\n");
  const std::string config_file = outbox::test::source_dir() + "/config/relay.yaml";
  // As systemd runs ExecStartPre: CREDENTIALS_DIRECTORY set, nothing else of ours (the
  // sanitizers' settings pass through for the ASan build).
  std::vector<std::string> command{"env", "-i", "CREDENTIALS_DIRECTORY=" + credentials.path()};
  for (const char* name : {"ASAN_OPTIONS", "LSAN_OPTIONS", "UBSAN_OPTIONS"}) {
    if (const char* value = std::getenv(name)) command.push_back(std::string(name) + "=" + value);
  }
  command.insert(command.end(), {outbox::test::relay_binary(), "--check-config", config_file});
  const auto check = run_command(command);
  INFO(check.err);
  CHECK(check.status == 0);

  const auto loaded = outbox::test::load_relay_config_text(
      outbox::test::read_text_file(config_file), {{"CREDENTIALS_DIRECTORY", credentials.path()}});
  REQUIRE(loaded.config);
  CHECK(loaded.config->mysql.password == "relay-secret");
  const auto admin = outbox::outboxctl_endpoint(loaded.config->mysql, loaded.config->outboxctl);
  REQUIRE(admin);
  CHECK(admin.value().user == "outbox_admin");
  CHECK(admin.value().password == "admin-secret");

  const auto stop_timeout =
      outbox::parse_duration(setting(settings_of("outbox-relay.service"), "TimeoutStopSec"));
  REQUIRE(stop_timeout);
  CHECK(*stop_timeout > loaded.config->relay.drain_timeout + loaded.config->mysql.read_timeout);
}

TEST_CASE("the relay's start timeout is extended while it waits, its watchdog fed in time",
          "[systemd]") {
  const auto unit = settings_of("outbox-relay.service");
  // EXTEND_TIMEOUT_USEC= and WATCHDOG=1 mean something only to a Type=notify service.
  CHECK(setting(unit, "Type") == "notify");
  const auto start_timeout = outbox::parse_duration(setting(unit, "TimeoutStartSec"));
  REQUIRE(start_timeout);
  // The first extension comes at once, the next ones well before the previous ran out.
  CHECK(*start_timeout > outbox::kStartupExtensionInterval);
  CHECK(outbox::kStartupExtension >= 3 * outbox::kStartupExtensionInterval);
  // StatusPulse pings at most every 5 s (half the watchdog interval if that is shorter).
  const auto watchdog = outbox::parse_duration(setting(unit, "WatchdogSec"));
  REQUIRE(watchdog);
  CHECK(*watchdog >= std::chrono::seconds(10));
}

TEST_CASE("the purge timer runs outboxctl purge daily with outboxctl's credentials", "[systemd]") {
  const auto timer = settings_of("outbox-purge.timer");
  CHECK(setting(timer, "OnCalendar") == "daily");
  CHECK(setting(timer, "Persistent") == "true");
  const auto service = settings_of("outbox-purge.service");
  CHECK(setting(service, "Type") == "oneshot");
  CHECK(setting(service, "ExecStart") ==
        "/usr/bin/outboxctl --config /etc/outbox-relay/relay.yaml purge");
  const auto credentials = service.equal_range("LoadCredential");
  std::vector<std::string> loaded;
  for (auto it = credentials.first; it != credentials.second; ++it)
    loaded.push_back(it->second);
  CHECK(loaded == std::vector<std::string>{"mysql-password:/etc/outbox-relay/mysql-password",
                                           "outboxctl-password:/etc/outbox-relay/"
                                           "outboxctl-password"});
  CHECK(setting(service, "DynamicUser") == "yes");
  CHECK(setting(service, "CapabilityBoundingSet").empty());
}
