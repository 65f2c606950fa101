#include "harness/tcp_proxy.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <deque>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
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

using Clock = std::chrono::steady_clock;

// Answer bytes held back by delay_replies(), due at `due`.
struct HeldReply {
  Clock::time_point due;
  std::string bytes;
};

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

TcpProxy::TcpProxy(std::string upstream_host, int upstream_port)
    : upstream_host_(std::move(upstream_host)), upstream_port_(upstream_port) {
  start_listening();
}

TcpProxy::TcpProxy() {
  start_listening();
}

void TcpProxy::start_listening() {
  listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address = loopback("127.0.0.1", 0);
  socklen_t length = sizeof(address);
  if (bind(listen_fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      listen(listen_fd_, 64) != 0 ||
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

void TcpProxy::set_upstream(const std::string& host, int port) {
  std::lock_guard lock(upstream_mutex_);
  upstream_host_ = host;
  upstream_port_ = port;
}

void TcpProxy::serve(const std::stop_token& stop) {
  std::map<int, int> peer;        // fd -> the other end of its pair
  std::map<int, bool> is_server;  // fd -> whether it is the upstream side
  std::set<int> faulted;          // client fds of pairs a fault touched, closed by heal()
  std::map<int, std::deque<HeldReply>> held;  // client fd -> answers delayed on their way
  const auto close_pair = [&](int fd) {
    const int other = peer[fd];
    for (const int end : {fd, other}) {
      close(end);
      peer.erase(end);
      is_server.erase(end);
      faulted.erase(end);
      held.erase(end);
    }
  };
  // Passes on every held answer whose time has come, oldest first per connection.
  const auto release_due = [&] {
    const auto now = Clock::now();
    for (auto it = held.begin(); it != held.end();) {
      const int client = it->first;
      std::deque<HeldReply>& queue = it->second;
      bool open = true;
      while (open && !queue.empty() && queue.front().due <= now) {
        open = write_all(client, queue.front().bytes.data(), queue.front().bytes.size());
        queue.pop_front();
      }
      ++it;  // stays valid: only `client`'s entry may go below
      if (!open) {
        close_pair(client);
      } else if (queue.empty()) {
        held.erase(client);
      }
    }
  };
  while (!stop.stop_requested()) {
    if (heal_requested_.exchange(false)) {
      mode_.store(Mode::kForward);
      while (!faulted.empty())
        close_pair(*faulted.begin());
    }
    release_due();
    const Mode mode = mode_.load();
    std::vector<pollfd> fds{{listen_fd_, POLLIN, 0}};
    for (const auto& [fd, other] : peer)
      fds.push_back({fd, POLLIN, 0});
    if (poll(fds.data(), fds.size(), 20) <= 0) continue;
    for (const pollfd& entry : fds) {
      if (entry.revents == 0 || (entry.fd != listen_fd_ && peer.count(entry.fd) == 0)) continue;
      if (entry.fd == listen_fd_) {
        const int client = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
        if (client < 0) continue;
        sockaddr_in address{};
        {
          std::lock_guard lock(upstream_mutex_);
          address = loopback(upstream_host_, upstream_port_);
        }
        const int server = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (address.sin_port == 0 ||
            connect(server, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
          close(client);
          close(server);
          continue;
        }
        peer[client] = server;
        peer[server] = client;
        is_server[client] = false;
        is_server[server] = true;
        if (mode != Mode::kForward) faulted.insert(client);
        continue;
      }
      std::array<char, 16384> buffer{};
      const ssize_t n = recv(entry.fd, buffer.data(), buffer.size(), 0);
      if (n <= 0) {
        close_pair(entry.fd);
        continue;
      }
      const bool from_server = is_server[entry.fd];
      const int client = from_server ? peer[entry.fd] : entry.fd;
      if (from_server && lose_next_reply_.exchange(false)) {
        ++replies_lost_;
        close_pair(entry.fd);
        continue;
      }
      if (mode == Mode::kCut || (mode == Mode::kDropReplies && from_server)) {
        // Read and thrown away: on the wire these bytes were lost.
        faulted.insert(client);
        if (from_server) ++replies_lost_;
        continue;
      }
      if (mode == Mode::kDropReplies) {
        faulted.insert(client);
        ++requests_passed_;
      }
      const int64_t delay_ms = reply_delay_ms_.load();
      if (from_server && (delay_ms > 0 || held.count(client) != 0)) {
        // Behind what is already held for this client: answers keep their order.
        std::deque<HeldReply>& queue = held[client];
        Clock::time_point due = Clock::now() + std::chrono::milliseconds(delay_ms);
        if (!queue.empty()) due = std::max(due, queue.back().due);
        queue.push_back(HeldReply{due, std::string(buffer.data(), static_cast<size_t>(n))});
        continue;
      }
      if (!write_all(peer[entry.fd], buffer.data(), static_cast<size_t>(n))) close_pair(entry.fd);
    }
  }
  for (const auto& [fd, other] : peer)
    close(fd);
}

}  // namespace outbox::harness
