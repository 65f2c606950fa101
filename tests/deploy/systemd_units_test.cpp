// The systemd units as shipped: systemd-analyze verify accepts them without a single warning
// and security scores them 1.1, the relay's unit is Type=notify and hardened as documented,
// its stop timeout covers the drain, the config installed beside it is valid under the
// environment and credentials systemd gives it, and the purge needs no relay password.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "child_process.hpp"
#include "config/duration.hpp"
#include "observe/startup_extension.hpp"
#include "relay_config_loading.hpp"
#include "settings/relay_config.hpp"
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

// Every value of a key that may repeat, in file order.
std::vector<std::string> settings_for(const std::multimap<std::string, std::string>& settings,
                                      const std::string& key) {
  std::vector<std::string> values;
  const auto [first, last] = settings.equal_range(key);
  for (auto it = first; it != last; ++it)
    values.push_back(it->second);
  return values;
}

// Each key is set once, to exactly that value.
void check_settings(const std::multimap<std::string, std::string>& unit,
                    const std::map<std::string, std::string>& expected) {
  for (const auto& [key, value] : expected) {
    INFO(key);
    CHECK(setting(unit, key) == value);
  }
}

// `command` as systemd runs a service's Exec lines: CREDENTIALS_DIRECTORY set, nothing else of
// ours (the sanitizers' settings pass through for the ASan build).
std::vector<std::string> as_systemd_runs(const std::string& credentials_directory,
                                         const std::vector<std::string>& command) {
  std::vector<std::string> line{"env", "-i", "CREDENTIALS_DIRECTORY=" + credentials_directory};
  for (const char* name : {"ASAN_OPTIONS", "LSAN_OPTIONS", "UBSAN_OPTIONS"}) {
    if (const char* value = std::getenv(name)) line.push_back(std::string(name) + "=" + value);
  }
  line.insert(line.end(), command.begin(), command.end());
  return line;
}

// The sandbox both services run in (issue 28); the test below scores it.
void check_hardening(const std::multimap<std::string, std::string>& unit) {
  const std::map<std::string, std::string> expected{
      {"DynamicUser", "yes"},
      {"ProtectSystem", "strict"},
      {"ProtectHome", "yes"},
      {"PrivateTmp", "yes"},
      {"PrivateDevices", "yes"},
      {"DevicePolicy", "closed"},
      {"PrivateMounts", "yes"},
      {"PrivateUsers", "yes"},
      {"ProtectKernelTunables", "yes"},
      {"ProtectKernelModules", "yes"},
      {"ProtectKernelLogs", "yes"},
      {"ProtectClock", "yes"},
      {"ProtectHostname", "yes"},
      {"ProtectControlGroups", "yes"},
      {"ProtectProc", "invisible"},
      {"ProcSubset", "pid"},
      {"RestrictNamespaces", "yes"},
      {"LockPersonality", "yes"},
      {"MemoryDenyWriteExecute", "yes"},
      {"RestrictRealtime", "yes"},
      {"RestrictSUIDSGID", "yes"},
      {"RemoveIPC", "yes"},
      {"RestrictAddressFamilies", "AF_INET AF_INET6 AF_UNIX"},
      {"SystemCallArchitectures", "native"},
      {"SystemCallErrorNumber", "EPERM"},
      {"CapabilityBoundingSet", ""},
      {"NoNewPrivileges", "yes"},
      {"UMask", "0077"},
  };
  check_settings(unit, expected);
  CHECK(settings_for(unit, "SystemCallFilter") ==
        std::vector<std::string>{"@system-service", "~@privileged @resources"});
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

TEST_CASE("systemd-analyze security scores both services 1.1 or better", "[systemd]") {
  // 3.1 ("OK") for each before issue 28's hardening, 1.1 after. What is left is what they need:
  // the network (AF_INET, AF_UNIX, no IPAddressDeny=), the host's root directory, and the
  // read access to /dev/rtc that ProtectClock= grants. --threshold is 10 x the exposure.
  for (const char* name : {"outbox-relay.service", "outbox-purge.service"}) {
    INFO(name);
    const auto scored = run_command({"systemd-analyze", "security", "--offline=true",
                                     "--threshold=11", "--no-pager", unit_path(name)});
    INFO(scored.out << scored.err);
    CHECK(scored.status == 0);
    CHECK(scored.out.find("Overall exposure level for " + std::string(name) + ": 1.1 OK") !=
          std::string::npos);
  }
}

TEST_CASE("the relay's unit notifies, watches and is hardened as documented", "[systemd]") {
  const auto unit = settings_of("outbox-relay.service");
  const std::map<std::string, std::string> expected{
      {"Type", "notify"},
      {"NotifyAccess", "main"},
      {"WatchdogSec", "30s"},
      {"RestartPreventExitStatus", "78"},
      // The config (root:root 0640, unreadable to the dynamic user) as a credential: %d is
      // the credentials directory.
      {"ExecStartPre", "/usr/bin/outbox-relay --check-config %d/relay.yaml"},
      {"ExecStart", "/usr/bin/outbox-relay --config %d/relay.yaml"},
  };
  check_settings(unit, expected);
  CHECK(settings_for(unit, "LoadCredential") ==
        std::vector<std::string>{"relay.yaml:/etc/outbox-relay/relay.yaml",
                                 "mysql-password:/etc/outbox-relay/mysql-password"});
  // SIGHUP would re-read the copy made at start, which an edit of the file never changes.
  CHECK(unit.count("ExecReload") == 0);
  check_hardening(unit);
}

TEST_CASE(
    "the installed config is valid with the credentials systemd hands over and the stop "
    "timeout covers its drain",
    "[systemd]") {
  // LoadCredential='s copies: mode 0400, owned by the service's user. The config itself is
  // one too: ExecStartPre checks systemd's copy.
  TempDir credentials;
  const std::string config_file = outbox::test::source_dir() + "/config/relay.yaml";
  const std::string credential =
      credentials.write("relay.yaml", outbox::test::read_text_file(config_file));
  for (const std::string& file : {credential, credentials.write("mysql-password", "relay-secret\n"),
                                  credentials.write("outboxctl-password", "admin-secret\n")}) {
    REQUIRE(chmod(file.c_str(), 0400) == 0);
  }
  const auto check = run_command(as_systemd_runs(
      credentials.path(), {outbox::test::relay_binary(), "--check-config", credential}));
  INFO(check.err);
  CHECK(check.status == 0);
  CHECK(check.err.empty());  // no warning: no secret in it, and nobody else may read it

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

TEST_CASE("a config every user can read that holds a secret is a warning of check-config",
          "[systemd]") {
  TempDir dir;
  const std::string file = dir.write("relay.yaml",
                                     "mysql:\n  user: relay\n  password: relay-s3cret\n"
                                     "  database: app\nkafka:\n  bootstrap_servers: k:9092\n");
  REQUIRE(chmod(file.c_str(), 0644) == 0);
  const auto exposed = run_command({outbox::test::relay_binary(), "--check-config", file});
  CHECK(exposed.status == 0);
  CHECK(exposed.err == "warning: " + file +
                           ":3: mysql.password: a secret written inline, in a file of mode 0644: "
                           "readable by every user of the machine (chmod 600 " +
                           file + ", or 640 with a group of its own)\n");
  REQUIRE(chmod(file.c_str(), 0640) == 0);
  const auto kept = run_command({outbox::test::relay_binary(), "--check-config", file});
  CHECK(kept.status == 0);
  CHECK(kept.err.empty());
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
  CHECK(setting(service, "ExecStart") == "/usr/bin/outboxctl --config %d/relay.yaml purge");
  // The config and outboxctl's password: the relay's is no business of the purge.
  CHECK(settings_for(service, "LoadCredential") ==
        std::vector<std::string>{"relay.yaml:/etc/outbox-relay/relay.yaml",
                                 "outboxctl-password:/etc/outbox-relay/outboxctl-password"});
  check_hardening(service);
}

TEST_CASE("outboxctl purge runs under the purge unit's credentials, without the relay's",
          "[systemd]") {
  // The unit's credentials: the installed config, with MySQL moved to a port where nothing
  // listens, and outboxctl's password. outboxctl must get past its config (exit 78 would be a
  // config error) to the connection, as outbox_admin.
  TempDir credentials;
  credentials.write("outboxctl-password", "admin-secret\n");
  const std::string shipped =
      outbox::test::read_text_file(outbox::test::source_dir() + "/config/relay.yaml");
  REQUIRE(shipped.find("  port: 3306\n") != std::string::npos);
  const std::string config_file = credentials.write(
      "relay.yaml", outbox::test::replace_all(shipped, "  port: 3306\n", "  port: 1\n"));
  const auto purge =
      run_command(as_systemd_runs(credentials.path(), {outbox::test::outboxctl_binary(), "--config",
                                                       config_file, "purge", "--dry-run"}));
  INFO(purge.err);
  CHECK(purge.status == 69);  // MySQL unreachable, the config was fine
  CHECK(purge.err.find("outbox_admin@127.0.0.1:1/app") != std::string::npos);
  CHECK(purge.err.find("mysql-password") == std::string::npos);

  // A config without an outboxctl account needs the relay's password, and says which key.
  const std::string without_account = outbox::test::replace_all(
      outbox::test::replace_all(shipped, "outboxctl:\n  user: outbox_admin\n", ""),
      "  password_file: ${CREDENTIALS_DIRECTORY:-/etc/outbox-relay}/outboxctl-password\n", "");
  REQUIRE(without_account.find("outbox_admin") == std::string::npos);
  TempDir etc;
  const std::string bare_file = etc.write("relay.yaml", without_account);
  const auto refused =
      run_command(as_systemd_runs(credentials.path(), {outbox::test::outboxctl_binary(), "--config",
                                                       bare_file, "purge", "--dry-run"}));
  CHECK(refused.status == 78);
  CHECK(refused.err == bare_file + ": mysql.password_file: cannot read " + credentials.path() +
                           "/mysql-password: No such file or directory (outboxctl.user is not "
                           "set, so outboxctl connects as mysql.user with its password; give "
                           "outboxctl an account of its own with outboxctl.user and "
                           "outboxctl.password_file)\n");
}
