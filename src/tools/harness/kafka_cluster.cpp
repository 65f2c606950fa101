#include "harness/kafka_cluster.hpp"

#include <cstdlib>
#include <exception>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "harness/child_process.hpp"
#include "harness/temp_dir.hpp"

namespace outbox::harness {
namespace {

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
    text.pop_back();
  return text;
}

// The value of `export NAME=value` in the env file the script writes.
std::string env_value(const std::string& env_file, const std::string& name) {
  std::istringstream lines(read_text_file(env_file));
  const std::string prefix = "export " + name + "=";
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(prefix, 0) == 0) return line.substr(prefix.size());
  }
  throw std::runtime_error(env_file + ": no " + name);
}

}  // namespace

KafkaCluster::KafkaCluster(std::string script, std::string dir, Wiring wiring)
    : script_(std::move(script)), dir_(std::move(dir)) {
  std::string advertised;
  for (int node = 1; wiring == Wiring::kProxied && node <= kNodes; ++node) {
    proxies_.push_back(std::make_unique<TcpProxy>());
    // Appended piece by piece: `"literal" + std::string&&` trips GCC 12's false -Wrestrict
    // at -O2 and above (GCC PR 105651).
    if (node > 1) advertised += ',';
    advertised += std::to_string(proxies_.back()->port());
  }
  const CommandResult started =
      run_command({"env", "OUTBOX_KAFKA_ADVERTISED_PORTS=" + advertised, script_, "start", dir_});
  if (started.status != 0) {
    throw std::runtime_error("kafka-cluster.sh start " + dir_ + " failed (exit " +
                             std::to_string(started.status) + "):\n" + started.err + started.out);
  }
  // DIR/ports: "N CLIENT INTERNAL CONTROLLER ADVERTISED" per node.
  std::istringstream ports(read_text_file(dir_ + "/ports"));
  int node = 0;
  int client = 0;
  int internal = 0;
  int controller = 0;
  int advertised_port = 0;
  while (wiring == Wiring::kProxied &&
         ports >> node >> client >> internal >> controller >> advertised_port) {
    proxy(node).set_upstream("127.0.0.1", client);
  }
  bootstrap_ = env_value(dir_ + "/env", "OUTBOX_KAFKA_BOOTSTRAP");
  internal_bootstrap_ = env_value(dir_ + "/env", "OUTBOX_KAFKA_INTERNAL_BOOTSTRAP");
  // A SASL_SSL cluster (OUTBOX_KAFKA_SECURITY=sasl_ssl in the environment the script saw):
  // its client settings go into this process's environment, so every client the test starts
  // authenticates: relays and planners (service_configs.hpp), kcat (KCAT_CONFIG, a file of
  // librdkafka properties kcat reads when no -F is given).
  if (env_value(dir_ + "/env", "OUTBOX_KAFKA_SECURITY") == "sasl_ssl") {
    for (const char* name :
         {"OUTBOX_KAFKA_SECURITY", "OUTBOX_KAFKA_CA", "OUTBOX_KAFKA_SASL_MECHANISM",
          "OUTBOX_KAFKA_SASL_USERNAME", "OUTBOX_KAFKA_SASL_PASSWORD_FILE"}) {
      setenv(name, env_value(dir_ + "/env", name).c_str(), 1);
    }
    setenv("KCAT_CONFIG", (dir_ + "/kcat.conf").c_str(), 1);
  }
}

// kill -9: a test's cluster is thrown away with its data, and a controlled shutdown of three
// nodes costs seconds.
KafkaCluster::~KafkaCluster() {
  try {
    run_command({script_, "kill", dir_});
  } catch (const std::exception& e) {
    // Nothing to do about it here: the nodes die with the test's process group at the latest.
    std::cerr << "kafka cluster " << dir_ << ": kill failed: " << e.what() << "\n";
  }
}

std::string KafkaCluster::version() const {
  return env_value(dir_ + "/env", "OUTBOX_KAFKA_VERSION");
}

std::string KafkaCluster::run(const std::vector<std::string>& args) const {
  std::vector<std::string> argv{script_};
  argv.insert(argv.end(), args.begin(), args.end());
  const CommandResult result = run_command(argv);
  if (result.status != 0) {
    std::string line;
    for (const std::string& arg : args)
      line += " " + arg;
    throw std::runtime_error("kafka-cluster.sh" + line + " failed: " + result.err + result.out);
  }
  return trimmed(result.out);
}

void KafkaCluster::create_topic(const std::string& topic, int partitions,
                                const std::vector<std::string>& configs) const {
  std::vector<std::string> args{"create-topic", dir_, topic, std::to_string(partitions)};
  args.insert(args.end(), configs.begin(), configs.end());
  run(args);
}

void KafkaCluster::create_topic_led_by(const std::string& topic, int partitions, int node) const {
  run({"create-topic", dir_, topic, std::to_string(partitions), "--leader", std::to_string(node)});
}

void KafkaCluster::alter_topic(const std::string& topic,
                               const std::vector<std::string>& configs) const {
  std::vector<std::string> args{"alter-topic", dir_, topic};
  args.insert(args.end(), configs.begin(), configs.end());
  run(args);
}

int KafkaCluster::leader(const std::string& topic, int partition) const {
  return std::stoi(run({"leader", dir_, topic, std::to_string(partition)}));
}

void KafkaCluster::kill_node(int node) const {
  run({"kill", dir_, std::to_string(node)});
}

void KafkaCluster::start_node(int node) const {
  run({"start-node", dir_, std::to_string(node)});
}

void KafkaCluster::start_nodes(const std::vector<int>& nodes) const {
  std::vector<std::string> args{"start-node", dir_};
  for (const int node : nodes)
    args.push_back(std::to_string(node));
  run(args);
}

void KafkaCluster::wait_leaders(const std::string& topic) const {
  run({"wait-leaders", dir_, topic});
}

void KafkaCluster::wait_in_sync(const std::string& topic) const {
  run({"wait-isr", dir_, topic});
}

std::string KafkaCluster::node_log(int node) const {
  return read_text_file(dir_ + "/node" + std::to_string(node) + "/server.log");
}

std::vector<pid_t> KafkaCluster::node_pids() const {
  std::vector<pid_t> pids;
  for (int node = 1; node <= kNodes; ++node) {
    // kafka-cluster.sh writes it at a node's start and removes it when it stops the node.
    std::ifstream in(dir_ + "/node" + std::to_string(node) + "/pid");
    pid_t pid = 0;
    if (in >> pid && pid > 0) pids.push_back(pid);
  }
  return pids;
}

}  // namespace outbox::harness
