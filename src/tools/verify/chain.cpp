#include "chain.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <stdexcept>

namespace outbox::verify {
namespace {

MysqlEndpoint with_database(MysqlEndpoint endpoint, const std::string& database) {
  endpoint.database = database;
  return endpoint;
}

}  // namespace

std::string request_id(int64_t order_id) {
  return "req-" + std::to_string(order_id);
}

Chain::Chain(ChainSetup setup)
    : setup_(std::move(setup)),
      password_file_(setup_.work_dir + "/mysql-password"),
      sql_(with_database(setup_.server, setup_.database)) {
  // The daemons read the password from a file, never from their command line or config.
  {
    std::ofstream out(password_file_);
    out << setup_.server.password;
  }
  chmod(password_file_.c_str(), 0600);
  harness::create_database_with_migrations(setup_.server, setup_.database,
                                           setup_.programs.migrations_script);
  broker_ = std::make_unique<ChainBroker>(setup_.broker, setup_.programs, setup_.work_dir,
                                          setup_.brokers, setup_.partitions,
                                          std::vector<std::string>{kOrderTopic, kDeadLetterTopic});
  // outboxctl reads the relay's config file; it never talks to Kafka.
  outboxctl_config_ = setup_.work_dir + "/outboxctl.yaml";
  std::ofstream(outboxctl_config_) << harness::relay_config_yaml(mysql_yaml(""), bootstrap(), {});
}

MysqlEndpoint Chain::database_endpoint(const std::string& account) const {
  MysqlEndpoint endpoint = with_database(setup_.server, setup_.database);
  if (!account.empty()) endpoint.user = account;
  return endpoint;
}

std::string Chain::mysql_yaml(const std::string& account) const {
  return harness::mysql_section_yaml(database_endpoint(account),
                                     "password_file: " + password_file_);
}

namespace {

std::map<std::string, std::string> environment_for(const std::string& failpoints) {
  return failpoints.empty() ? std::map<std::string, std::string>{}
                            : harness::failpoint_environment(failpoints);
}

}  // namespace

std::unique_ptr<harness::DaemonProcess> Chain::start_relay(
    const std::string& name, const harness::RelayConfigSettings& settings,
    const std::string& failpoints, const std::string& account) {
  harness::RelayConfigSettings with = settings;
  if (!setup_.relay_ordering.empty()) {
    with.extra_relay_settings += "  ordering: " + setup_.relay_ordering + "\n";
  }
  return std::make_unique<harness::DaemonProcess>(
      programs().relay, work_dir(), name,
      harness::relay_config_yaml(mysql_yaml(account), bootstrap(), with),
      environment_for(failpoints));
}

std::unique_ptr<harness::DaemonProcess> Chain::start_planner(
    const std::string& name, const harness::PlannerConfigSettings& settings,
    const std::string& failpoints, const std::string& account) {
  return std::make_unique<harness::DaemonProcess>(
      programs().planner, work_dir(), name,
      harness::planner_config_yaml(mysql_yaml(account), bootstrap(), settings),
      environment_for(failpoints));
}

std::unique_ptr<harness::ChildProcess> Chain::start_writer(const std::string& name,
                                                           const WriterOrders& orders,
                                                           const std::string& failpoints) {
  const MysqlEndpoint endpoint = database_endpoint(orders.account);
  std::vector<std::string> argv{programs().loadgen,
                                "--host",
                                endpoint.host,
                                "--port",
                                std::to_string(orders.port != 0 ? orders.port : endpoint.port),
                                "--user",
                                endpoint.user,
                                "--database",
                                endpoint.database,
                                "--tenant",
                                std::to_string(kTenant),
                                "--first-order-id",
                                std::to_string(orders.first_order_id),
                                "--orders",
                                std::to_string(orders.orders),
                                "--rate",
                                std::to_string(orders.rate)};
  std::map<std::string, std::string> env = environment_for(failpoints);
  env["OUTBOX_MYSQL_PASSWORD"] = endpoint.password;  // not on the command line
  return std::make_unique<harness::ChildProcess>(argv, work_dir() + "/" + name + ".log", env);
}

harness::CommandResult Chain::outboxctl(const std::vector<std::string>& args) const {
  std::vector<std::string> argv{programs().outboxctl, "--config", outboxctl_config_, "--json"};
  argv.insert(argv.end(), args.begin(), args.end());
  return harness::run_command(argv);
}

std::vector<harness::KafkaRecord> Chain::order_topic() const {
  return harness::read_topic(bootstrap(), kOrderTopic);
}

std::vector<std::pair<int, long long>> Chain::copies_of(const std::string& event_id) const {
  std::vector<std::pair<int, long long>> copies;
  for (const harness::KafkaRecord& record : order_topic()) {
    const auto found = record.headers.find("event_id");
    if (found != record.headers.end() && found->second == event_id)
      copies.emplace_back(record.partition, record.offset);
  }
  return copies;
}

bool Chain::group_caught_up() const {
  std::map<int, long long> end;
  for (const harness::KafkaRecord& record : order_topic())
    end[record.partition] = std::max(end[record.partition], record.offset + 1);
  const std::map<int, long long> committed = group_offsets();
  for (const auto& [partition, next] : end) {
    const auto found = committed.find(partition);
    if (found == committed.end() || found->second != next) return false;
  }
  return true;
}

std::map<int, long long> Chain::group_offsets() const {
  return harness::committed_offsets(bootstrap(), kConsumerName, kOrderTopic, setup_.partitions);
}

}  // namespace outbox::verify
