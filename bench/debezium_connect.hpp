#pragma once

#include <memory>
#include <string>

#include "child_process.hpp"
#include "test_database.hpp"
#include "test_env.hpp"

namespace outbox::bench {

// Where Debezium connects: the MariaDB server and database the bench uses, the Kafka cluster.
struct DebeziumTarget {
  MysqlEndpoint database;            // host, port and database of the bench's MariaDB
  std::string bootstrap;             // the real Kafka cluster
  std::string schema_changes_topic;  // topic.prefix: Debezium writes DDL events there
  bool mysql = false;                // a MySQL server: Debezium's MySQL connector, not MariaDB's
};

// Debezium as its users run it: a Kafka Connect worker in standalone mode
// (bench/anchors/debezium/debezium.sh connect: Kafka's connect-standalone.sh JVM options) with
// Debezium's MariaDB (or MySQL) connector and its Outbox Event Router, routing each outbox_event
// row to `topic` (key aggregate_id, value payload, the event id in header "id"). The connector's
// offsets live in a file of this object's own, so start() after stop() resumes where the
// connector stopped, like a restarted worker; a new object is a new connector.
class DebeziumConnect {
 public:
  // `server_id`: the connector's replication client id, unique among the server's readers.
  DebeziumConnect(const DebeziumTarget& target, const std::string& topic, int server_id);
  ~DebeziumConnect();

  // Starts the worker and returns at once.
  void start();
  // Returns once the connector streams the binary log (its log says so); throws when the
  // worker exits or 3 minutes pass first.
  void wait_streaming();
  // SIGTERM: the worker stops the task and commits its offsets. kStopped when it exited by
  // itself within 180 s; otherwise its threads are dumped into its log (SIGQUIT) and it is
  // killed -9: kKilled, or kFailed when it exited with another status.
  enum class StopOutcome { kStopped, kKilled, kFailed };
  StopOutcome stop();
  // True once a stop left committed offsets: a restart resumes from them.
  bool has_offsets() const;

  pid_t pid() const { return process_->pid(); }
  std::string log() const { return process_ ? process_->output() : ""; }

 private:
  test::TempDir dir_;
  std::string worker_config_;
  std::string connector_config_;
  std::unique_ptr<test::ChildProcess> process_;
  int starts_ = 0;
};

// The settings the worker's source-task producer ran with (acks, enable.idempotence,
// max.in.flight.requests.per.connection, linger.ms, batch.size, compression.type), read from a
// worker log's "ProducerConfig values" for client connector-producer-*.
std::string connect_producer_settings(const std::string& log);

// The account Debezium reads with: SELECT, RELOAD, SHOW DATABASES, REPLICATION SLAVE and
// REPLICATION CLIENT (BINLOG MONITOR in MariaDB 10.5+), as Debezium's documentation asks.
// Returns its user name and password in `endpoint` (host, port and database unchanged).
MysqlEndpoint create_debezium_account(const test::TestDatabase& db);

// "Debezium 3.5.0.Final, Kafka Connect 4.1.1" (the pinned versions).
std::string debezium_versions();

}  // namespace outbox::bench
