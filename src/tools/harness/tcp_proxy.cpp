#include "harness/tcp_proxy.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cstring>
#include <map>
#include <stdexcept>
#include <vector>

namespace outbox::harness {
namespace {

sockaddr_in loopback(const std::string& host, int port) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, host.c_str(), &address.sin_addr);
  return address;
}

bool write_all(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = send(fd, data, size, MSG_NOSIGNAL);
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

TcpProxy::TcpProxy(const std::string& upstream_host, int upstream_port)
    : upstream_host_(upstream_host), upstream_port_(upstream_port) {
  listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address = loopback("127.0.0.1", 0);
  socklen_t length = sizeof(address);
  if (bind(listen_fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      listen(listen_fd_, 16) != 0 ||
      getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    throw std::runtime_error(std::string("tcp proxy: cannot listen: ") + std::strerror(errno));
  }
  port_ = ntohs(address.sin_port);
  thread_ = std::jthread([this](const std::stop_token& stop) { serve(stop); });
}

TcpProxy::~TcpProxy() {
  thread_.request_stop();
  if (thread_.joinable()) thread_.join();
  close(listen_fd_);
}

void TcpProxy::serve(const std::stop_token& stop) {
  std::map<int, int> peer;        // fd -> the other end of its pair
  std::map<int, bool> is_server;  // fd -> whether it is the upstream side
  const auto close_pair = [&](int fd) {
    const int other = peer[fd];
    for (const int end : {fd, other}) {
      close(end);
      peer.erase(end);
      is_server.erase(end);
    }
  };
  while (!stop.stop_requested()) {
    std::vector<pollfd> fds{{listen_fd_, POLLIN, 0}};
    for (const auto& [fd, other] : peer)
      fds.push_back({fd, POLLIN, 0});
    if (poll(fds.data(), fds.size(), 50) <= 0) continue;
    for (const pollfd& entry : fds) {
      if (entry.revents == 0 || (entry.fd != listen_fd_ && peer.count(entry.fd) == 0)) continue;
      if (entry.fd == listen_fd_) {
        const int client = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
        if (client < 0) continue;
        const int server = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in address = loopback(upstream_host_, upstream_port_);
        if (connect(server, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
          close(client);
          close(server);
          continue;
        }
        peer[client] = server;
        peer[server] = client;
        is_server[client] = false;
        is_server[server] = true;
        continue;
      }
      std::array<char, 16384> buffer{};
      const ssize_t n = recv(entry.fd, buffer.data(), buffer.size(), 0);
      if (n <= 0) {
        close_pair(entry.fd);
        continue;
      }
      if (is_server[entry.fd] && lose_next_reply_.exchange(false)) {
        ++replies_lost_;
        close_pair(entry.fd);
        continue;
      }
      if (!write_all(peer[entry.fd], buffer.data(), static_cast<size_t>(n))) close_pair(entry.fd);
    }
  }
  for (const auto& [fd, other] : peer)
    close(fd);
}

}  // namespace outbox::harness
