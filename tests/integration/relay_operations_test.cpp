// The relay as operators run it: metrics and health over HTTP after a real run, systemd's
// notify protocol and credentials directory, SIGHUP reload, secrets kept out of the logs, JSON
// log lines.
#include <signal.h>
#include <yaml-cpp/yaml.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <regex>
#include <sstream>
#include <thread>
#include <utility>
#include <vector>

#include "child_process.hpp"
#include "http_scrape.hpp"
#include "notify_socket.hpp"
#include "observe/startup_extension.hpp"
#include "poll.hpp"
#include "relay_process.hpp"
#include "tcp_proxy.hpp"
#include "test_database.hpp"
#include "test_kafka.hpp"

using namespace std::chrono_literals;
using outbox::test::eventually;
using outbox::test::http_get;
using outbox::test::logged;
using outbox::test::metric_sample;
using outbox::test::RelayProcess;
using outbox::test::RelayTestConfig;
using outbox::test::TestBroker;
using outbox::test::TestDatabase;

TEST_CASE("metrics and health endpoints report a real run", "[operations]") {
  TestDatabase db;
  db.insert_events(300, "metric");
  TestBroker broker(3, 8, {"outbox.order"});
  RelayProcess relay(db, broker.bootstrap(), RelayTestConfig{});
  const int port = relay.metrics_port();
  REQUIRE(eventually([&] { return db.count("status = 'PUBLISHED'") == 300; }));
  REQUIRE(eventually([&] { return http_get(port, "/readyz").status == 200; }));
  CHECK(http_get(port, "/readyz").body == "ready\n");
  CHECK(http_get(port, "/healthz").status == 200);
  CHECK(http_get(port, "/healthz").body == "ok\n");

  // Backlog gauges come from a periodic query (1 s in tests): wait for one after the drain.
  std::string metrics;
  REQUIRE(eventually([&] {
    metrics = http_get(port, "/metrics").body;
    return metric_sample(metrics, "outbox_relay_backlog_events{status=\"PENDING\"}") == 0 &&
           metric_sample(metrics, "outbox_relay_events_published_total") == 300;
  }));
  CHECK(metric_sample(metrics, "outbox_relay_events_claimed_total") == 300);
  CHECK(metric_sample(metrics, "outbox_relay_marks_refused_total") == 0);
  CHECK(metric_sample(metrics, "outbox_relay_events_in_flight") == 0);
  CHECK(metric_sample(metrics, "outbox_relay_ready") == 1);
  CHECK(metric_sample(metrics, "outbox_relay_draining") == 0);
  CHECK(metric_sample(metrics, "outbox_relay_backlog_events{status=\"FAILED\"}") == 0);
  CHECK(metric_sample(metrics, "outbox_relay_claim_duration_seconds_count") >= 1);
  CHECK(metric_sample(
            metrics, "outbox_relay_delivery_latency_seconds_count{stage=\"claim_to_ack\"}") == 300);
  CHECK(metric_sample(metrics,
                      "outbox_relay_delivery_latency_seconds_count{stage=\"created_to_ack\"}") ==
        300);
  CHECK(metrics.find("# TYPE outbox_relay_events_published_total counter") != std::string::npos);
  // librdkafka's request counters (its statistics): exported from the start, 0 on a sound link.
  CHECK(metric_sample(metrics, "outbox_relay_kafka_request_retries_total") == 0);
  CHECK(metric_sample(metrics, "outbox_relay_kafka_request_timeouts_total") == 0);
  CHECK(metric_sample(metrics, "outbox_relay_kafka_transmit_errors_total") >= 0);
  CHECK(metric_sample(metrics, "outbox_relay_kafka_disconnects_total") >= 0);
  CHECK(metrics.find("outbox_relay_build_info{version=\"") != std::string::npos);

  // Broker gone: not ready any more (the relay cannot publish), still alive.
  broker.command("down all");
  db.insert_events(10, "metric-down");
  REQUIRE(eventually([&] { return http_get(port, "/readyz").status == 503; }));
  CHECK(http_get(port, "/readyz").body == "kafka unreachable or producer failed\n");
  CHECK(http_get(port, "/healthz").status == 200);
  REQUIRE(eventually([&] {
    metrics = http_get(port, "/metrics").body;
    return metric_sample(metrics,
                         "outbox_relay_publish_failures_total{reason=\"_MSG_TIMED_OUT\"}") >= 1 ||
           metric_sample(metrics, "outbox_relay_broker_errors_total") >= 1;
  }));
  broker.command("up all");
  REQUIRE(eventually([&] { return db.count("status = 'PUBLISHED'") == 310; }));
  outbox::test::stop_gracefully(relay);
}

TEST_CASE("a worker waiting on a full producer queue stays healthy", "[operations][health]") {
  TestDatabase db;
  TestBroker broker(3, 8, {"outbox.order"});
  RelayTestConfig settings;
  settings.workers = 1;
  settings.lease = "30s";
  // Room for 10 messages: a batch of 200 waits in send() for the queue, up to the delivery
  // timeout (20 s), much longer than the stall timeout (8 s).
  settings.extra_kafka_properties =
      "    message.timeout.ms: 20000\n"
      "    queue.buffering.max.messages: 10\n";
  settings.extra_mysql_settings = "  connect_timeout: 1s\n  read_timeout: 2s\n";
  settings.extra_metrics_settings = "  stall_timeout: 8s\n";
  RelayProcess relay(db, broker.bootstrap(), settings);
  const int port = relay.metrics_port();
  REQUIRE(eventually([&] { return http_get(port, "/readyz").status == 200; }));
  broker.command("rtt all 60000");  // the broker takes a minute to acknowledge anything
  db.insert_events(200, "queue", "order", 200);  // one event per aggregate: none parked
  REQUIRE(eventually([&] { return db.count("status = 'PUBLISHING'") == 200; }));
  // The worker now waits inside send() for queue room; that wait is legitimate.
  CHECK(outbox::test::answers_other_than(port, "/healthz", 200, 16s) == "");
  broker.command("rtt all 0");
  REQUIRE(eventually([&] { return db.count("status = 'PUBLISHED'") == 200; }));
  outbox::test::stop_gracefully(relay);
}

TEST_CASE("under systemd: credentials, READY=1 after start-up, STATUS, WATCHDOG, STOPPING",
          "[operations][systemd]") {
  TestDatabase db;
  db.insert_events(50, "notify");
  TestBroker broker;
  outbox::test::TempDir dir;
  // LoadCredential= puts the password in $CREDENTIALS_DIRECTORY; the config points there.
  const std::string credentials = dir.path() + "/credentials";
  std::filesystem::create_directory(credentials);
  dir.write("credentials/mysql-password", db.endpoint().password + "\n");
  std::string yaml = outbox::test::relay_config_yaml(db, broker.bootstrap(), RelayTestConfig{});
  yaml.replace(yaml.find("password: ${OUTBOX_MYSQL_PASSWORD}"),
               std::string("password: ${OUTBOX_MYSQL_PASSWORD}").size(),
               "password_file: ${CREDENTIALS_DIRECTORY}/mysql-password");
  const std::string config = dir.write("relay.yaml", yaml);
  outbox::test::NotifySocket notify(dir.path() + "/notify.sock");
  outbox::test::ChildProcess relay({outbox::test::relay_binary(), "--config", config},
                                   dir.file("relay.log"),
                                   {{"NOTIFY_SOCKET", notify.path()},
                                    {"CREDENTIALS_DIRECTORY", credentials},
                                    {"WATCHDOG_USEC", "2000000"},
                                    {"OUTBOX_MYSQL_PASSWORD", "not-the-password"}});
  REQUIRE(notify.wait_for("READY=1"));
  // READY=1 came only after MySQL and Kafka answered.
  const std::string log = relay.output();
  CHECK(log.find("mysql ") < log.find("relay running"));
  CHECK(log.find("kafka ") < log.find("relay running"));
  REQUIRE(eventually([&] { return db.count("status = 'PUBLISHED'") == 50; }));
  REQUIRE(notify.wait_for("WATCHDOG=1"));
  REQUIRE(notify.wait_for("STATUS=published 50 "));
  relay.signal(SIGTERM);
  REQUIRE(notify.wait_for("STOPPING=1"));
  const auto status = relay.wait_exit(60s);
  REQUIRE(status.has_value());
  CHECK(*status == 0);
}

namespace {

// The microseconds an EXTEND_TIMEOUT_USEC= message announces, or nullopt for other messages.
std::optional<std::chrono::microseconds> announced_extension(const std::string& message) {
  const std::string key = "EXTEND_TIMEOUT_USEC=";
  if (message.rfind(key, 0) != 0) return std::nullopt;
  return std::chrono::microseconds(std::stoll(message.substr(key.size())));
}

}  // namespace

TEST_CASE("under systemd: waiting for MySQL at boot keeps extending the start timeout",
          "[operations][systemd]") {
  TestDatabase db;
  db.insert_events(20, "boot");
  TestBroker broker;
  // MySQL is "down": nothing answers at the relay's address until the test connects it.
  outbox::test::TcpProxy mysql;
  outbox::test::TempDir dir;
  const std::string config = dir.write(
      "relay.yaml",
      outbox::harness::relay_config_yaml(outbox::test::mysql_section_yaml(db, mysql.port()),
                                         broker.bootstrap(), RelayTestConfig{}));
  outbox::test::NotifySocket notify(dir.path() + "/notify.sock");
  const auto started = std::chrono::steady_clock::now();
  outbox::test::ChildProcess relay({outbox::test::relay_binary(), "--config", config},
                                   dir.file("relay.log"), {{"NOTIFY_SOCKET", notify.path()}});
  REQUIRE(notify.wait_for("EXTEND_TIMEOUT_USEC=", 30s));

  // Longer than one whole extension (kStartupExtension, 30 s) and several of its intervals: at
  // every moment the last extension must still be running, or systemd would kill the relay
  // for starting too slowly. Each extension announced before the previous one ran out, while
  // the wait loop is the same one throughout, carries the start past any TimeoutStartSec
  // (systemd's default 90 s); watching 90 s of it would prove nothing more and cost a minute
  // in each of the suite's four runs of this test.
  const auto observed_until = started + outbox::kStartupExtension + 8s;
  while (std::chrono::steady_clock::now() < observed_until) {
    REQUIRE(relay.running());
    std::this_thread::sleep_for(100ms);
    (void)notify.notifications();
  }
  std::vector<std::pair<std::chrono::steady_clock::time_point, std::chrono::microseconds>>
      extensions;
  for (const auto& notification : notify.notifications()) {
    INFO(notification.text);
    CHECK(notification.text != "READY=1");
    if (const auto extension = announced_extension(notification.text)) {
      extensions.emplace_back(notification.received_at, *extension);
    }
  }
  REQUIRE(extensions.size() >= 2);
  CHECK(extensions.front().first - started < 90s);
  std::chrono::steady_clock::duration longest_gap{};
  for (size_t i = 1; i < extensions.size(); ++i) {
    const auto gap = extensions[i].first - extensions[i - 1].first;
    longest_gap = std::max(longest_gap, gap);
    INFO("extension " << i << " came " << std::chrono::duration<double>(gap).count()
                      << " s after the previous one, which announced "
                      << std::chrono::duration<double>(extensions[i - 1].second).count() << " s");
    CHECK(gap < extensions[i - 1].second);
  }
  CHECK(std::chrono::steady_clock::now() - extensions.back().first < extensions.back().second);
  std::cout << "[figures] start-up wait for MySQL: " << extensions.size()
            << " EXTEND_TIMEOUT_USEC messages in "
            << std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()
            << " s, the first after "
            << std::chrono::duration<double>(extensions.front().first - started).count()
            << " s, longest gap " << std::chrono::duration<double>(longest_gap).count()
            << " s, each announcing "
            << std::chrono::duration<double>(extensions.front().second).count() << " s\n";
  CHECK(relay.output().find("waiting for MySQL") != std::string::npos);

  // MySQL comes up: start-up completes, and the extensions stop.
  const size_t before_ready = notify.notifications().size();
  mysql.set_upstream(db.endpoint().host, db.endpoint().port);
  REQUIRE(notify.wait_for("READY=1"));
  REQUIRE(eventually([&] { return db.count("status = 'PUBLISHED'") == 20; }));
  bool extended_after_ready = false;
  bool ready_seen = false;
  const auto& all = notify.notifications();
  for (size_t i = before_ready; i < all.size(); ++i) {
    if (all[i].text == "READY=1") ready_seen = true;
    if (ready_seen && announced_extension(all[i].text)) extended_after_ready = true;
  }
  CHECK_FALSE(extended_after_ready);
  relay.signal(SIGTERM);
  const auto status = relay.wait_exit(60s);
  REQUIRE(status.has_value());
  CHECK(*status == 0);
}

TEST_CASE("SIGHUP applies what it can, keeps the old config on errors, names restarts",
          "[operations][reload]") {
  TestDatabase db;
  TestBroker broker;
  RelayTestConfig settings;
  settings.instance_id = "reloader";
  RelayProcess relay(db, broker.bootstrap(), settings);
  REQUIRE(eventually([&] { return logged(relay, "relay running"); }));
  const std::string original = [&] {
    std::ifstream in(relay.config_file());
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }();
  const auto rewrite = [&](const std::string& text) { std::ofstream(relay.config_file()) << text; };

  // A broken file: nothing changes, every problem is logged.
  rewrite(original + "bogus_section: 1\n");
  relay.process().signal(SIGHUP);
  REQUIRE(
      eventually([&] { return logged(relay, "is not valid; keeping the running configuration"); }));
  CHECK(logged(relay, "bogus_section: unknown key"));

  // Live keys apply; a key that needs a restart is named.
  std::string changed = original;
  changed.replace(changed.find("batch_size: 500"), 15, "batch_size: 7");
  changed.replace(changed.find("level: debug"), 12, "level: info");
  changed.replace(changed.find("instance_id: reloader"), 21, "instance_id: renamed");
  rewrite(changed);
  relay.process().signal(SIGHUP);
  REQUIRE(eventually([&] {
    return logged(
        relay, "SIGHUP: reloaded " + relay.config_file() + ": log.level info, relay.batch_size 7");
  }));
  CHECK(logged(relay, "SIGHUP: relay.instance_id changed; it takes effect only after a restart"));
  // The new batch size is used: 20 events need 3 claims of at most 7.
  db.insert_events(20, "reload");
  REQUIRE(eventually([&] { return db.count("status = 'PUBLISHED'") == 20; }));
  CHECK(db.count("published_by LIKE 'reloader/%'") == 20);
  const auto claims = db.scalar("SELECT COUNT(DISTINCT published_by) FROM outbox_event");
  CHECK(std::stoi(claims) >= 3);
  outbox::test::stop_gracefully(relay);
}

TEST_CASE("relay.max_events_per_second paces the whole relay, and SIGHUP lifts it",
          "[operations][event-rate]") {
  TestDatabase db;
  db.insert_events(600, "paced");
  TestBroker broker;
  RelayTestConfig settings;
  settings.extra_relay_settings = "  max_events_per_second: 200\n";
  const auto started = std::chrono::steady_clock::now();
  RelayProcess relay(db, broker.bootstrap(), settings);
  REQUIRE(eventually([&] { return db.count("status = 'PUBLISHED'") == 600; }));
  // At most 200 at once and 200 a second after that, both workers together: 2 s at least
  // (a lower bound only: a slow machine takes longer, never less).
  CHECK(std::chrono::steady_clock::now() - started >= 2s);
  const std::string paced = http_get(relay.metrics_port(), "/metrics").body;
  CHECK(metric_sample(paced, "outbox_relay_max_events_per_second") == 200);
  CHECK(metric_sample(paced, "outbox_relay_rate_limited_seconds_total") > 0);
  REQUIRE(eventually([&] { return logged(relay, "(relay.max_events_per_second)"); }));

  std::string text;
  {
    std::ifstream in(relay.config_file());
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  text.replace(text.find("max_events_per_second: 200"), 26, "max_events_per_second: 0");
  std::ofstream(relay.config_file()) << text;
  relay.process().signal(SIGHUP);
  REQUIRE(eventually([&] { return logged(relay, "relay.max_events_per_second 0 (unlimited)"); }));
  CHECK_FALSE(logged(relay, "relay.max_events_per_second changed; it takes effect only after"));
  const std::string lifted = http_get(relay.metrics_port(), "/metrics").body;
  CHECK(metric_sample(lifted, "outbox_relay_max_events_per_second") == 0);
  db.insert_events(2000, "unpaced");
  REQUIRE(eventually([&] { return db.count("status = 'PUBLISHED'") == 2600; }));
  outbox::test::stop_gracefully(relay);
}

TEST_CASE("secrets never reach the logs, even at trace level with librdkafka debugging",
          "[operations][secrets]") {
  TestDatabase db;
  db.insert_events(5, "secret");
  TestBroker broker;
  // A dedicated user with a password that is easy to search for.
  const std::string password = "Pw-9f3c2e1d-never-log-me";
  const std::string user = "relay_" + db.name().substr(2);
  db.exec("CREATE USER '" + user + "'@'127.0.0.1' IDENTIFIED BY '" + password +
          "'; GRANT ALL ON `" + db.name() + "`.* TO '" + user + "'@'127.0.0.1'");
  outbox::test::TempDir dir;
  std::string yaml = outbox::test::relay_config_yaml(db, broker.bootstrap(), RelayTestConfig{});
  yaml.replace(yaml.find("user: " + db.endpoint().user), 6 + db.endpoint().user.size(),
               "user: " + user);
  yaml.replace(yaml.find("${OUTBOX_MYSQL_PASSWORD}"), 24, password);
  yaml.replace(
      yaml.find("  properties:\n"), 14,
      "  properties:\n    sasl.password: Kafka-5e6d-never-log-me\n    debug: conf,generic\n");
  yaml.replace(yaml.find("  level: debug"), 14, "  level: trace");
  const std::string config = dir.write("relay.yaml", yaml);
  outbox::test::ChildProcess relay({outbox::test::relay_binary(), "--config", config},
                                   dir.file("relay.log"));
  REQUIRE(eventually([&] { return db.count("status = 'PUBLISHED'") == 5; }));
  relay.signal(SIGTERM);
  REQUIRE(relay.wait_exit(60s).has_value());
  const std::string log = relay.output();
  CHECK(log.find("librdkafka") != std::string::npos);  // its debug output was on
  CHECK(log.find("sasl.password = *****") != std::string::npos);
  CHECK(log.find(password) == std::string::npos);
  CHECK(log.find("Kafka-5e6d-never-log-me") == std::string::npos);
  db.exec("DROP USER '" + user + "'@'127.0.0.1'");
}

TEST_CASE("log.format json writes one JSON object per line", "[operations][logs]") {
  TestDatabase db;
  db.insert_events(3, "json");
  TestBroker broker;
  RelayTestConfig settings;
  settings.extra_log_settings = "  format: json\n";
  RelayProcess relay(db, broker.bootstrap(), settings);
  REQUIRE(eventually([&] { return db.count("status = 'PUBLISHED'") == 3; }));
  outbox::test::stop_gracefully(relay);
  std::istringstream lines(relay.log());
  int parsed = 0;
  bool saw_event = false;
  for (std::string line; std::getline(lines, line);) {
    INFO(line);
    const YAML::Node record = YAML::Load(line);  // JSON is YAML: any malformed line throws
    REQUIRE(record.IsMap());
    CHECK(record["ts"].IsScalar());
    CHECK(record["level"].IsScalar());
    const std::string message = record["msg"].as<std::string>();
    if (message.find("event " + outbox::test::event_id("json", 1) +
                     " delivered to outbox.order[") == 0) {
      saw_event = true;
    }
    ++parsed;
  }
  CHECK(parsed > 10);
  CHECK(saw_event);
}

TEST_CASE("/readyz tells an unauthenticated client why, never where or as whom",
          "[operations][health]") {
  // An account the server refuses: its error names the user and the client's host. /readyz
  // answers anyone who can reach the port; the log is the operator's.
  TestDatabase db;
  TestBroker broker(3, 8, {"outbox.order"});
  RelayTestConfig settings;
  settings.mysql_user = "zebra_unknown_user";
  settings.mysql_password = "zebra-wrong-password";
  settings.backoff_max = "500ms";
  RelayProcess relay(db, broker.bootstrap(), settings);
  const int port = relay.metrics_port();
  REQUIRE(eventually([&] { return logged(relay, "Access denied for user 'zebra_unknown_user'"); }));
  const outbox::test::HttpAnswer ready = http_get(port, "/readyz");
  INFO(ready.body);
  CHECK(ready.status == 503);
  // Whichever source reported first (the start-up wait, or the backlog monitor: under
  // ThreadSanitizer it can be first), each says why in the same fixed words.
  CHECK((ready.body ==
             "starting: waiting for MySQL: cannot connect (details in the log) (start-up)\n" ||
         ready.body ==
             "starting: mysql: cannot open a session (details in the log) (backlog monitor)\n"));
  for (const std::string& secret : {std::string("zebra"), db.name(),
                                    std::to_string(db.endpoint().port), std::string("127.0.0.1")}) {
    CHECK(ready.body.find(secret) == std::string::npos);
    CHECK(http_get(port, "/healthz").body.find(secret) == std::string::npos);
  }
  CHECK(logged(relay, "zebra_unknown_user@127.0.0.1:" + std::to_string(db.endpoint().port) + "/" +
                          db.name()));
}

namespace {

// Where MariaDB's binary log ends now: (file, position).
std::pair<std::string, std::string> binlog_end(const TestDatabase& db) {
  const auto rows = db.query("SHOW MASTER STATUS");
  REQUIRE(rows.size() == 1);
  return {rows[0][0], rows[0][1]};
}

// The UPDATEs MariaDB annotated with their text (Annotate_rows events, binlog_annotate_row_events)
// after `from` whose text names an event id starting with `prefix`: a claim's or a mark's names
// every row it updates.
long annotated_updates(const TestDatabase& db, const std::pair<std::string, std::string>& from,
                       const std::string& prefix) {
  const std::regex file_name("[A-Za-z0-9._-]+");  // spliced into SHOW, which binds nothing
  long found = 0;
  bool reached = false;
  for (const auto& log : db.query("SHOW BINARY LOGS")) {
    reached = reached || log[0] == from.first;
    if (!reached) continue;
    REQUIRE(std::regex_match(log[0], file_name));
    const std::string start = log[0] == from.first ? " FROM " + from.second : "";
    for (const auto& event : db.query("SHOW BINLOG EVENTS IN '" + log[0] + "'" + start)) {
      // A statement's text with line breaks (other tests') continues on lines of its own.
      if (event.size() < 6) continue;
      if (event[2] == "Annotate_rows" && event[5].rfind("UPDATE", 0) == 0 &&
          event[5].find("'" + prefix) != std::string::npos) {
        ++found;
      }
    }
  }
  REQUIRE(reached);
  return found;
}

}  // namespace

TEST_CASE(
    "the claim sessions log MINIMAL row images where the account may and the server's when told",
    "[operations][binlog]") {
  TestDatabase db;
  db.insert_events(20, "rowimage");
  TestBroker broker;
  // MariaDB annotates every row event with its statement by default; the relay's sessions
  // leave that out with MINIMAL images and keep it with the server's settings.
  const bool annotates = !db.on_mysql() && db.scalar("SELECT @@binlog_annotate_row_events") == "1";
  auto from = annotates ? binlog_end(db) : std::pair<std::string, std::string>{};
  // The sessions of this test's database whose binlog_row_image is `image`, as MySQL's
  // performance_schema sees them (MariaDB has no view of another session's variables: there
  // the relay's own line is the evidence, and bench/primary-cost.sh measures the log).
  const auto sessions_with = [&db](const std::string& image) {
    return std::stoll(db.scalar(
        "SELECT COUNT(*) FROM performance_schema.variables_by_thread v JOIN "
        "performance_schema.threads t USING (THREAD_ID) WHERE t.PROCESSLIST_DB = '" +
        db.name() + "' AND v.VARIABLE_NAME = 'binlog_row_image' AND v.VARIABLE_VALUE = '" + image +
        "'"));
  };
  {
    outbox::test::RelayProcess relay(db, broker.bootstrap(), RelayTestConfig{});
    REQUIRE(eventually([&] { return db.count("status = 'PUBLISHED'") == 20; }));
    CHECK(relay.count("binlog_row_image MINIMAL on the claim sessions") == 1);
    if (db.on_mysql()) {
      CHECK(sessions_with("MINIMAL") >= 2);  // one per worker (relay.workers: 2)
    }
    outbox::test::stop_gracefully(relay);
  }
  if (annotates) {
    CHECK(annotated_updates(db, from, "rowimage-") == 0);
    from = binlog_end(db);
  }
  db.exec("UPDATE outbox_event SET status = 'PENDING', published_at = NULL, published_by = NULL");
  RelayTestConfig settings;
  settings.extra_relay_settings = "  binlog_row_image: server\n";
  outbox::test::RelayProcess relay(db, broker.bootstrap(), settings);
  REQUIRE(eventually([&] { return db.count("status = 'PUBLISHED'") == 20; }));
  CHECK_FALSE(outbox::test::logged(relay, "binlog_row_image"));
  if (db.on_mysql()) {
    CHECK(sessions_with("MINIMAL") == 0);
  }
  outbox::test::stop_gracefully(relay);
  // At least a claim and a mark, each with its text.
  if (annotates) CHECK(annotated_updates(db, from, "rowimage-") >= 2);
}
