#include "debezium_connect.hpp"

#include <signal.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace outbox::bench {
namespace {

std::string debezium_script() {
  return test::source_dir() + "/bench/anchors/debezium/debezium.sh";
}

std::string script_output(const std::string& command) {
  const test::CommandResult result = test::run_command({debezium_script(), command});
  if (result.status != 0) {
    throw std::runtime_error("debezium.sh " + command + " failed: " + result.err + result.out);
  }
  std::string out = result.out;
  while (!out.empty() && out.back() == '\n')
    out.pop_back();
  return out;
}

// Failures the worker logs without exiting: the task is dead, the worker idles on.
bool task_failed(const std::string& log) {
  return log.find("Task threw an uncaught and unrecoverable exception") != std::string::npos ||
         log.find("Failed to create connector") != std::string::npos ||
         log.find("Stopping after connector error") != std::string::npos;
}

}  // namespace

DebeziumConnect::DebeziumConnect(const DebeziumTarget& target, const std::string& topic,
                                 int server_id)
    : dir_("outbox-bench-debezium") {
  // Settings that are not Debezium's or Connect's defaults, and why (docs/benchmarks.md):
  //  - StringConverter for keys and values: the message is the row's aggregate_id and payload
  //    bytes, as the relay sends them (Connect's sample JsonConverter would wrap each payload
  //    in a schema envelope).
  //  - listeners on port 0: several workers (and other agents) share the machine.
  worker_config_ = dir_.write(
      "worker.properties", "bootstrap.servers=" + target.bootstrap +
                               "\n"
                               "key.converter=org.apache.kafka.connect.storage.StringConverter\n"
                               "value.converter=org.apache.kafka.connect.storage.StringConverter\n"
                               "offset.storage.file.filename=" +
                               dir_.file("connect.offsets") + "\nplugin.path=" +
                               script_output("plugin-path") + "\nlisteners=http://127.0.0.1:0\n");
  //  - snapshot.mode=no_data: an outbox connector streams new events; it does not replay the
  //    table's history as snapshot reads (the Outbox Event Router's documented set-up).
  //  - database/table include lists: the outbox table only; and its schema history records
  //    the DDL of the captured database and table only (store.only.captured.*.ddl). Without
  //    them its start reads the structure of every table on the server, and a test that drops
  //    its own database meanwhile made it fail ("Table t_..._orders doesn't exist").
  //  - snapshot.locking.mode=none: with no_data the snapshot reads only the outbox table's
  //    structure, which nothing alters during a run. The default (minimal) first waits for
  //    FLUSH TABLES WITH READ LOCK, a lock on the whole shared server: behind another test's
  //    open transaction it timed out (lock_wait_timeout) and fell back to LOCK TABLES, which
  //    the bench's user may not run, so Debezium stopped before streaming.
  //  - the connector of the server's kind: Debezium's MySQL connector refuses MariaDB 10.11
  //    (bench/anchors/debezium/pom.xml), and its MariaDB connector speaks MariaDB's GTIDs.
  //  - the router's column mapping: the seed's outbox_event columns (event_id, aggregate_id,
  //    payload, aggregate_type) and the relay's headers (event_type, event_version,
  //    aggregate_type), so both systems send the same message; the topic is the run's own.
  connector_config_ = dir_.write(
      "connector.properties",
      "name=outbox-connector\n"
      "connector.class=" +
          std::string(target.mysql ? "io.debezium.connector.mysql.MySqlConnector"
                                   : "io.debezium.connector.mariadb.MariaDbConnector") +
          "\ntasks.max=1\n"
          "database.hostname=" +
          target.database.host + "\ndatabase.port=" + std::to_string(target.database.port) +
          "\ndatabase.user=" + target.database.user + "\ndatabase.password=" +
          target.database.password + "\ndatabase.server.id=" + std::to_string(server_id) +
          "\ntopic.prefix=" + target.schema_changes_topic + "\ndatabase.include.list=" +
          target.database.database + "\ntable.include.list=" + target.database.database +
          ".outbox_event\n"
          "snapshot.mode=no_data\n"
          "snapshot.locking.mode=none\n"
          "schema.history.internal.store.only.captured.databases.ddl=true\n"
          "schema.history.internal.store.only.captured.tables.ddl=true\n"
          "schema.history.internal.kafka.bootstrap.servers=" +
          target.bootstrap + "\nschema.history.internal.kafka.topic=" +
          target.schema_changes_topic + ".history." + std::to_string(server_id) +
          "\n"
          "transforms=outbox\n"
          "transforms.outbox.type=io.debezium.transforms.outbox.EventRouter\n"
          "transforms.outbox.table.field.event.id=event_id\n"
          "transforms.outbox.table.field.event.key=aggregate_id\n"
          "transforms.outbox.table.field.event.payload=payload\n"
          "transforms.outbox.route.by.field=aggregate_type\n"
          "transforms.outbox.route.topic.replacement=" +
          topic +
          "\n"
          "transforms.outbox.table.fields.additional.placement=event_type:header:event_type,"
          "event_version:header:event_version,aggregate_type:header:aggregate_type\n");
}

DebeziumConnect::~DebeziumConnect() = default;

void DebeziumConnect::start() {
  ++starts_;
  process_ = std::make_unique<test::ChildProcess>(
      std::vector<std::string>{debezium_script(), "connect", worker_config_, connector_config_},
      dir_.file("connect-" + std::to_string(starts_) + ".log"));
}

void DebeziumConnect::wait_streaming() {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(3);
  for (;;) {
    const std::string output = process_->output();
    if (output.find("Connected to binlog at") != std::string::npos) return;
    if (!process_->running() || task_failed(output)) {
      dir_.keep();
      throw std::runtime_error("Debezium did not start (logs kept in " + dir_.path() + "):\n" +
                               output.substr(output.size() > 6000 ? output.size() - 6000 : 0));
    }
    if (std::chrono::steady_clock::now() > deadline) {
      dir_.keep();
      throw std::runtime_error("Debezium did not stream within 3 minutes; logs in " + dir_.path());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

DebeziumConnect::StopOutcome DebeziumConnect::stop() {
  process_->signal(SIGTERM);
  // A minute is not always enough: the binlog client's disconnect can wait for its keepalive
  // thread, whose interval is connect.keep.alive.interval.ms (60 s by default; a known
  // behaviour of mysql-binlog-connector-java). Seen once in CI's smoke run: SIGTERM at
  // 17:04:14, the task's last offset commit at 17:05:09, then the exit. Stopping is not what
  // the benchmark times, and Debezium keeps its defaults, so it gets the time it takes.
  if (const auto status = process_->wait_exit(std::chrono::seconds(180))) {
    // The JVM exits 143 (128 + SIGTERM) after its shutdown hook stopped the worker cleanly.
    return *status == 0 || *status == 143 ? StopOutcome::kStopped : StopOutcome::kFailed;
  }
  // Seen once here: the last offset commit 49 s after SIGTERM, then nothing for two minutes.
  // The JVM prints every thread's stack on SIGQUIT (to its stdout, the log), which says what
  // it waited for; the run goes on, and the report counts the kill.
  process_->signal(SIGQUIT);
  std::this_thread::sleep_for(std::chrono::seconds(2));  // no signal says the dump is written
  process_->signal(SIGKILL);
  process_->wait_exit(std::chrono::seconds(30));
  return StopOutcome::kKilled;
}

bool DebeziumConnect::has_offsets() const {
  std::error_code error;
  return std::filesystem::file_size(dir_.file("connect.offsets"), error) > 0 && !error;
}

std::string connect_producer_settings(const std::string& log) {
  // "ProducerConfig values:" is followed by one "\tname = value" line per setting.
  const std::string wanted[] = {
      "acks",      "enable.idempotence", "max.in.flight.requests.per.connection",
      "linger.ms", "batch.size",         "compression.type"};
  std::istringstream lines(log);
  std::map<std::string, std::string> block;
  bool in_block = false;
  for (std::string line; std::getline(lines, line);) {
    if (line.find("ProducerConfig values:") != std::string::npos) {
      if (block.count("client.id") && block["client.id"].rfind("connector-producer", 0) == 0) break;
      block.clear();
      in_block = true;
      continue;
    }
    if (!in_block || line.empty() || line[0] != '\t') {
      in_block = false;
      continue;
    }
    const size_t eq = line.find(" = ");
    if (eq != std::string::npos) block[line.substr(1, eq - 1)] = line.substr(eq + 3);
  }
  if (!block.count("client.id") || block["client.id"].rfind("connector-producer", 0) != 0) {
    return "(not found in the worker log)";
  }
  std::string settings;
  for (const std::string& name : wanted)
    settings += (settings.empty() ? "" : ", ") + name + "=" + block[name];
  return settings;
}

MysqlEndpoint create_debezium_account(const test::TestDatabase& db) {
  MysqlEndpoint endpoint = db.endpoint();
  endpoint.user = "bench_debezium";
  endpoint.password = "bench_debezium";
  // TCP from 127.0.0.1 (the server runs with skip-name-resolve).
  db.exec(
      "CREATE USER IF NOT EXISTS 'bench_debezium'@'127.0.0.1' IDENTIFIED BY 'bench_debezium'; "
      "GRANT SELECT, RELOAD, SHOW DATABASES, REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO "
      "'bench_debezium'@'127.0.0.1'");
  return endpoint;
}

std::string debezium_versions() {
  return script_output("version");
}

}  // namespace outbox::bench
