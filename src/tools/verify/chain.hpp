#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "chain_broker.hpp"
#include "harness/child_process.hpp"
#include "harness/daemon_process.hpp"
#include "harness/kafka_tools.hpp"
#include "harness/mariadb_cli.hpp"
#include "harness/service_configs.hpp"
#include "programs.hpp"

namespace outbox::verify {

inline const std::string kOrderTopic = "outbox.order";
inline const std::string kDeadLetterTopic = "outbox.order.dead-letter";
inline const std::string kConsumerName = "notification-planner";
inline constexpr int64_t kTenant = 1;

// Where the chain runs: the server (an account allowed to create a database), the database
// to create on it, the broker and its shape, and the directory for configs and logs.
struct ChainSetup {
  Programs programs;
  MysqlEndpoint server;  // .database is ignored
  std::string database;
  std::string work_dir;
  BrokerKind broker = BrokerKind::kMock;
  int brokers = 3;  // the mock's; the real cluster has 3 nodes
  int partitions = 4;
  // relay.ordering of every relay the run starts (--ordering); empty: the relay's default.
  std::string relay_ordering{};
};

// Orders for one writer process (outbox-loadgen): ids first_order_id.., request id
// "req-<order id>", tenant kTenant.
struct WriterOrders {
  int64_t first_order_id = 1;
  int64_t orders = 1;
  double rate = 0;      // orders per second; 0: as fast as one connection commits
  int port = 0;         // 0: the server's; else e.g. a TcpProxy in front of it
  std::string account;  // empty: the server's account

  static WriterOrders one(int64_t order_id) {
    WriterOrders orders;
    orders.first_order_id = order_id;
    return orders;
  }
};

// The chain under verification: a fresh database with the migrations applied, a broker (the
// mock or a real cluster) with the order topic and its dead-letter topic, and the processes started
// against them (writers, relays, consumers), each with its config and log in the work directory.
class Chain {
 public:
  // Throws std::runtime_error when the database or the broker cannot be set up.
  explicit Chain(ChainSetup setup);
  Chain(const Chain&) = delete;
  Chain& operator=(const Chain&) = delete;

  const ChainSetup& setup() const { return setup_; }
  const Programs& programs() const { return setup_.programs; }
  // The experiment's database through the mariadb CLI (an independent client).
  const harness::MariadbCli& sql() const { return sql_; }
  ChainBroker& broker() { return *broker_; }
  const ChainBroker& broker() const { return *broker_; }
  const std::string& bootstrap() const { return broker_->bootstrap(); }
  // The endpoint of the experiment's database, as the chain's programs connect to it.
  MysqlEndpoint database_endpoint(const std::string& account = "") const;

  // `name` names the config and log files (<work dir>/<name>.yaml, .log) and must be unique.
  // `failpoints` arms failpoints in that process only (see failpoint.hpp); `account` connects
  // as another MySQL user (with the server's password), so its sessions can be told apart.
  std::unique_ptr<harness::DaemonProcess> start_relay(const std::string& name,
                                                      const harness::RelayConfigSettings& settings,
                                                      const std::string& failpoints = "",
                                                      const std::string& account = "");
  std::unique_ptr<harness::DaemonProcess> start_planner(
      const std::string& name, const harness::PlannerConfigSettings& settings,
      const std::string& failpoints = "", const std::string& account = "");
  std::unique_ptr<harness::ChildProcess> start_writer(const std::string& name,
                                                      const WriterOrders& orders,
                                                      const std::string& failpoints = "");

  // outboxctl --json ARGS... against the experiment's database: the operator's lookups by
  // stable id.
  harness::CommandResult outboxctl(const std::vector<std::string>& args) const;

  // Every record of the order topic, read from the beginning with kcat.
  std::vector<harness::KafkaRecord> order_topic() const;
  // Where the copies of one event are on the order topic (partition, offset), in topic order.
  std::vector<std::pair<int, long long>> copies_of(const std::string& event_id) const;
  // Whether the consumer group's committed offsets are at the end of every partition.
  bool group_caught_up() const;
  // The consumer group's committed offset per partition of the order topic (negative: none),
  // read by a client that does not join the group.
  std::map<int, long long> group_offsets() const;

  const std::string& work_dir() const { return setup_.work_dir; }

 private:
  std::string mysql_yaml(const std::string& account) const;

  ChainSetup setup_;
  std::string password_file_;
  harness::MariadbCli sql_;
  std::unique_ptr<ChainBroker> broker_;
  std::string outboxctl_config_;
};

// The `req-<order id>` request id the writer gives an order.
std::string request_id(int64_t order_id);

}  // namespace outbox::verify
