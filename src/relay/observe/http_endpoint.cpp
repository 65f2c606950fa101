#include "observe/http_endpoint.hpp"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <vector>

#include "observe/http_request.hpp"

namespace outbox {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

// After the answer is sent the connection is half-closed and whatever the client still sends
// is read and dropped for this long: closing with unread bytes would reset the connection and
// could destroy the answer before the client read it.
constexpr milliseconds kLingerAfterAnswer{1000};

const char* status_text(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 413:
      return "Payload Too Large";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
    case 505:
      return "HTTP Version Not Supported";
  }
  return "Error";
}

std::string response(int status, const std::string& content_type, const std::string& body,
                     bool with_body) {
  std::string out = "HTTP/1.1 " + std::to_string(status) + " " + status_text(status) +
                    "\r\nContent-Type: " + content_type +
                    "\r\nContent-Length: " + std::to_string(body.size()) +
                    "\r\nConnection: close\r\n";
  if (status == 405) out += "Allow: GET, HEAD\r\n";
  out += "\r\n";
  if (with_body) out += body;
  return out;
}

std::string probe_response(const ProbeResult& result, bool with_body) {
  return response(result.ok ? 200 : 503, "text/plain", result.detail + "\n", with_body);
}

}  // namespace

struct HttpEndpoint::Loop {
  // One accepted connection. Nested here rather than in the anonymous namespace: a member
  // of an anonymous-namespace type in Loop trips -Wsubobject-linkage in a unity build.
  struct Connection {
    enum class Phase { kReading, kWriting, kLingering };
    Phase phase = Phase::kReading;
    steady_clock::time_point accepted;
    steady_clock::time_point deadline;  // of the current phase
    std::string received;
    std::string answer;
    size_t sent = 0;
  };

  HttpHandlers handlers;
  HttpLimits limits;
  std::map<int, Connection> connections;

  void run(int listen_fd, int wake_fd);
  void accept_all(int listen_fd);
  void read_from(int fd, Connection& connection);
  void write_to(int fd, Connection& connection);
  std::string answer(const RequestHead& head);
  void close_connection(int fd) {
    close(fd);
    connections.erase(fd);
  }
};

std::optional<ListenAddress> parse_listen(const std::string& listen) {
  const size_t colon = listen.rfind(':');
  if (colon == std::string::npos || colon == 0) return std::nullopt;
  const std::string port = listen.substr(colon + 1);
  if (port.empty() || port.size() > 5 ||
      port.find_first_not_of("0123456789") != std::string::npos || std::stoi(port) > 65535) {
    return std::nullopt;
  }
  return ListenAddress{listen.substr(0, colon), std::stoi(port)};
}

Outcome<std::unique_ptr<HttpEndpoint>> HttpEndpoint::start(const std::string& listen,
                                                           HttpHandlers handlers,
                                                           HttpLimits limits) {
  const std::optional<ListenAddress> address = parse_listen(listen);
  if (!address) return Error{"metrics.listen: \"" + listen + "\" is not host:port"};
  std::string host = address->host;
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(address->port);
  if (const int error = getaddrinfo(host.c_str(), port.c_str(), &hints, &found); error != 0) {
    return Error{"metrics.listen: cannot resolve " + listen + ": " + gai_strerror(error)};
  }
  std::unique_ptr<HttpEndpoint> endpoint(new HttpEndpoint());
  endpoint->host_ = address->host;
  std::string failure = "no address";
  for (const addrinfo* candidate = found; candidate != nullptr; candidate = candidate->ai_next) {
    const int fd =
        socket(candidate->ai_family, candidate->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) continue;
    const int on = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
    // Probes first: the kernel hands over a connection once its first bytes arrived (or after
    // about this many seconds of silence), so a probe comes with its request and is answered
    // at accept, and a flood of connections that say nothing does not reach the table of 64
    // where it would evict a probe waiting for its request (Linux's TCP_DEFER_ACCEPT).
    const int defer_seconds = 2;
    setsockopt(fd, IPPROTO_TCP, TCP_DEFER_ACCEPT, &defer_seconds, sizeof(defer_seconds));
    // The longest accept queue the kernel allows (net.core.somaxconn): under a flood the
    // endpoint's own table chooses whom to drop (never a probe that asked), while a full kernel
    // queue would drop a probe's connection before the endpoint ever saw it.
    if (bind(fd, candidate->ai_addr, candidate->ai_addrlen) == 0 && ::listen(fd, SOMAXCONN) == 0) {
      endpoint->listen_fd_ = fd;
      break;
    }
    failure = std::strerror(errno);
    close(fd);
  }
  freeaddrinfo(found);
  if (endpoint->listen_fd_ < 0) {
    return Error{"metrics.listen: cannot listen on " + listen + ": " + failure};
  }
  sockaddr_storage bound{};
  socklen_t length = sizeof(bound);
  getsockname(endpoint->listen_fd_, reinterpret_cast<sockaddr*>(&bound), &length);
  endpoint->port_ =
      ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                        : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  endpoint->wake_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  endpoint->loop_ = std::make_unique<Loop>(Loop{std::move(handlers), limits, {}});
  endpoint->thread_ =
      std::thread([loop = endpoint->loop_.get(), listen_fd = endpoint->listen_fd_,
                   wake_fd = endpoint->wake_fd_] { loop->run(listen_fd, wake_fd); });
  return endpoint;
}

HttpEndpoint::~HttpEndpoint() {
  if (thread_.joinable()) {
    const uint64_t one = 1;
    [[maybe_unused]] const ssize_t written = write(wake_fd_, &one, sizeof(one));
    thread_.join();
  }
  if (wake_fd_ >= 0) close(wake_fd_);
  if (listen_fd_ >= 0) close(listen_fd_);
}

void HttpEndpoint::Loop::run(int listen_fd, int wake_fd) {
  std::vector<pollfd> fds;
  for (;;) {
    const auto now = steady_clock::now();
    for (auto it = connections.begin(); it != connections.end();) {
      auto next = std::next(it);
      if (now >= it->second.deadline) close_connection(it->first);
      it = next;
    }
    auto wait = milliseconds(1000);
    fds.assign({{wake_fd, POLLIN, 0}, {listen_fd, POLLIN, 0}});
    for (const auto& [fd, connection] : connections) {
      fds.push_back(
          {fd,
           static_cast<short>(connection.phase == Connection::Phase::kWriting ? POLLOUT : POLLIN),
           0});
      wait = std::min(wait, std::chrono::ceil<milliseconds>(connection.deadline - now));
    }
    const int ready =
        poll(fds.data(), fds.size(), static_cast<int>(std::max<long>(wait.count(), 1)));
    if (ready < 0 && errno != EINTR) {
      spdlog::error("metrics endpoint: poll failed: {}; no longer serving", std::strerror(errno));
      break;
    }
    if (ready <= 0) continue;
    if (fds[0].revents != 0) break;  // stop requested
    for (size_t i = 2; i < fds.size(); ++i) {
      if (fds[i].revents == 0) continue;
      const auto it = connections.find(fds[i].fd);
      if (it == connections.end()) continue;
      if (it->second.phase == Connection::Phase::kWriting) {
        write_to(fds[i].fd, it->second);
      } else {
        read_from(fds[i].fd, it->second);
      }
    }
    if (fds[1].revents != 0) accept_all(listen_fd);
  }
  for (const auto& [fd, connection] : connections)
    close(fd);
  connections.clear();
}

void HttpEndpoint::Loop::accept_all(int listen_fd) {
  for (;;) {
    const int fd = accept4(listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;  // EAGAIN: none left (or a transient error: poll tells again)
    if (connections.size() >= limits.max_connections) {
      // The oldest connection that has not been answered goes: a legitimate one is answered
      // within milliseconds, so the oldest is the one most likely holding a slot without
      // asking anything. One being answered (or lingering after its answer) goes last: closing
      // it could destroy an answer the client has not read yet.
      const auto evict_first = [](const auto& a, const auto& b) {
        const bool a_reading = a.second.phase == Connection::Phase::kReading;
        const bool b_reading = b.second.phase == Connection::Phase::kReading;
        if (a_reading != b_reading) return a_reading;
        return a.second.accepted < b.second.accepted;
      };
      const auto oldest = std::min_element(connections.begin(), connections.end(), evict_first);
      close_connection(oldest->first);
    }
    Connection connection;
    connection.accepted = steady_clock::now();
    connection.deadline = connection.accepted + limits.header_timeout;
    auto& accepted = connections.emplace(fd, std::move(connection)).first->second;
    // A probe sends its request as it connects: read (and answer) it now, before the next
    // accept can evict it. A flood of new connections then cannot push a kubelet's probe
    // out; it only evicts connections that sent nothing answerable yet.
    read_from(fd, accepted);
  }
}

void HttpEndpoint::Loop::read_from(int fd, Connection& connection) {
  char buffer[4096];
  const ssize_t n = recv(fd, buffer, sizeof(buffer), 0);
  if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
    close_connection(fd);
    return;
  }
  if (n < 0 || connection.phase == Connection::Phase::kLingering) return;
  connection.received.append(buffer, static_cast<size_t>(n));
  const RequestHead head = parse_request_head(connection.received);
  if (head.state == RequestHead::State::kIncomplete) return;
  connection.answer = head.state == RequestHead::State::kRefused
                          ? response(head.status, "text/plain", head.reason + "\n", true)
                          : answer(head);
  connection.received.clear();
  connection.received.shrink_to_fit();
  connection.phase = Connection::Phase::kWriting;
  connection.deadline = steady_clock::now() + limits.write_timeout;
  write_to(fd, connection);
}

void HttpEndpoint::Loop::write_to(int fd, Connection& connection) {
  while (connection.sent < connection.answer.size()) {
    const ssize_t n = send(fd, connection.answer.data() + connection.sent,
                           connection.answer.size() - connection.sent, MSG_NOSIGNAL);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
    if (n <= 0) {
      close_connection(fd);
      return;
    }
    connection.sent += static_cast<size_t>(n);
  }
  shutdown(fd, SHUT_WR);
  connection.answer.clear();
  connection.answer.shrink_to_fit();
  connection.phase = Connection::Phase::kLingering;
  connection.deadline = steady_clock::now() + kLingerAfterAnswer;
}

std::string HttpEndpoint::Loop::answer(const RequestHead& head) {
  const bool with_body = head.method != "HEAD";
  try {
    if (head.path == "/metrics") {
      return response(200, "text/plain; version=0.0.4; charset=utf-8", handlers.metrics(),
                      with_body);
    }
    if (head.path == "/healthz") return probe_response(handlers.healthz(), with_body);
    if (head.path == "/readyz") return probe_response(handlers.readyz(), with_body);
  } catch (const std::exception& error) {
    spdlog::error("metrics endpoint: {} failed: {}", head.path, error.what());
    return response(500, "text/plain", "internal error\n", with_body);
  }
  return response(404, "text/plain", "not found: try /metrics, /healthz or /readyz\n", with_body);
}

}  // namespace outbox
