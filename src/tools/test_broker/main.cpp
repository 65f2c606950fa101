// outbox-test-broker: librdkafka's mock cluster (the real Kafka protocol over TCP on
// loopback) as a process that the relay, kcat and the consumer connect to like any broker,
// with a control channel to inject faults into it from tests and scripts.
//
//   outbox-test-broker [--brokers N] [--partitions P] [--topic NAME]... [--control SOCKET]
//       prints "bootstrap=HOST:PORT,..." on stdout, then serves commands from stdin and from
//       the control socket until SIGTERM/SIGINT or "quit" on stdin.
//   outbox-test-broker ctl SOCKET COMMAND...
//       sends one command to a running broker, prints the reply; exit 0 if it was "ok".
//   outbox-test-broker --version
//       the librdkafka whose mock cluster this binary runs (the "broker version" a report names).
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#include <poll.h>
#include <signal.h>  // NOLINT(modernize-deprecated-headers): POSIX pthread_sigmask, sigset_t
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "mock_commands.hpp"

namespace {

using outbox::test_broker::apply_command;

int usage() {
  std::cerr << "usage: outbox-test-broker [--brokers N] [--partitions P] [--topic NAME]... "
               "[--control SOCKET]\n"
               "       outbox-test-broker ctl SOCKET COMMAND...\n"
               "       outbox-test-broker --version\n";
  return 64;
}

sockaddr_un socket_address(const std::string& path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, path.c_str(), sizeof(address.sun_path) - 1);
  return address;
}

int run_ctl(const std::string& path, const std::string& command) {
  const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un address = socket_address(path);
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    std::cerr << "cannot connect to " << path << ": " << std::strerror(errno) << "\n";
    return 1;
  }
  const std::string line = command + "\n";
  if (write(fd, line.data(), line.size()) != static_cast<ssize_t>(line.size())) return 1;
  std::string reply;
  std::array<char, 256> buffer{};
  while (reply.find('\n') == std::string::npos) {
    const ssize_t n = read(fd, buffer.data(), buffer.size());
    if (n <= 0) break;
    reply.append(buffer.data(), static_cast<size_t>(n));
  }
  close(fd);
  std::cout << reply;
  return reply.rfind("ok", 0) == 0 ? 0 : 1;
}

// Splits complete lines off a connection's buffer.
std::vector<std::string> take_lines(std::string& buffer) {
  std::vector<std::string> lines;
  for (size_t end; (end = buffer.find('\n')) != std::string::npos;) {
    lines.push_back(buffer.substr(0, end));
    buffer.erase(0, end + 1);
  }
  return lines;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() == 1 && args[0] == "--version") {
    std::cout << "outbox-test-broker (librdkafka " << rd_kafka_version_str()
              << " mock cluster: the Kafka protocol over TCP)\n";
    return 0;
  }
  if (!args.empty() && args[0] == "ctl") {
    if (args.size() < 3) return usage();
    std::string command;
    for (size_t i = 2; i < args.size(); ++i)
      command += (i > 2 ? " " : "") + args[i];
    return run_ctl(args[1], command);
  }

  int brokers = 3;
  int partitions = 8;
  std::string control;
  std::vector<std::string> topics;
  for (size_t i = 0; i < args.size(); ++i) {
    const bool has_value = i + 1 < args.size();
    if (args[i] == "--brokers" && has_value) {
      brokers = std::stoi(args[++i]);
    } else if (args[i] == "--partitions" && has_value) {
      partitions = std::stoi(args[++i]);
    } else if (args[i] == "--topic" && has_value) {
      topics.push_back(args[++i]);
    } else if (args[i] == "--control" && has_value) {
      control = args[++i];
    } else {
      return usage();
    }
  }

  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);  // before librdkafka starts threads
  const int signal_fd = signalfd(-1, &signals, SFD_CLOEXEC);

  // The mock cluster lives inside a client handle; this one never produces.
  std::array<char, 256> error{};
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  rd_kafka_conf_set(conf, "log_level", "3", nullptr, 0);
  rd_kafka_t* handle = rd_kafka_new(RD_KAFKA_PRODUCER, conf, error.data(), error.size());
  if (handle == nullptr) {
    std::cerr << "cannot create client: " << error.data() << "\n";
    return 1;
  }
  rd_kafka_mock_cluster_t* cluster = rd_kafka_mock_cluster_new(handle, brokers);
  if (cluster == nullptr) {
    std::cerr << "cannot create mock cluster\n";
    return 1;
  }
  for (const std::string& topic : topics) {
    rd_kafka_mock_topic_create(cluster, topic.c_str(), partitions, std::min(brokers, 3));
  }

  int listen_fd = -1;
  if (!control.empty()) {
    unlink(control.c_str());
    listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un address = socket_address(control);
    if (bind(listen_fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
        listen(listen_fd, 16) != 0) {
      std::cerr << "cannot listen on " << control << ": " << std::strerror(errno) << "\n";
      return 1;
    }
  }
  std::cout << "bootstrap=" << rd_kafka_mock_cluster_bootstraps(cluster) << std::endl;

  std::map<int, std::string> clients;  // fd -> unread input; fd 0 is stdin
  clients[STDIN_FILENO] = "";
  bool running = true;
  while (running) {
    std::vector<pollfd> fds{{signal_fd, POLLIN, 0}};
    if (listen_fd >= 0) fds.push_back({listen_fd, POLLIN, 0});
    for (const auto& [fd, pending] : clients)
      fds.push_back({fd, POLLIN, 0});
    if (poll(fds.data(), fds.size(), -1) < 0) continue;
    for (const pollfd& entry : fds) {
      if (entry.revents == 0) continue;
      if (entry.fd == signal_fd) {
        running = false;
      } else if (entry.fd == listen_fd) {
        const int client = accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
        if (client >= 0) clients[client] = "";
      } else {
        std::array<char, 1024> buffer{};
        const ssize_t n = read(entry.fd, buffer.data(), buffer.size());
        if (n <= 0) {
          if (entry.fd != STDIN_FILENO) close(entry.fd);
          clients.erase(entry.fd);
          continue;
        }
        std::string& pending = clients[entry.fd];
        pending.append(buffer.data(), static_cast<size_t>(n));
        for (const std::string& line : take_lines(pending)) {
          if (entry.fd == STDIN_FILENO && line == "quit") {
            running = false;
            break;
          }
          const std::string reply = apply_command(cluster, brokers, line) + "\n";
          const int out = entry.fd == STDIN_FILENO ? STDOUT_FILENO : entry.fd;
          if (write(out, reply.data(), reply.size()) < 0) break;
        }
      }
    }
  }
  for (const auto& [fd, pending] : clients) {
    if (fd != STDIN_FILENO) close(fd);
  }
  if (listen_fd >= 0) unlink(control.c_str());
  rd_kafka_mock_cluster_destroy(cluster);
  rd_kafka_destroy(handle);
  return 0;
}
