#include "mysql/server_greeting.hpp"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <utility>
#include <vector>

namespace outbox {
namespace {

// The capability bit a server sets in its greeting when it can switch the session to TLS.
constexpr unsigned kClientSsl = 0x0800;

// Closes the descriptor on every path out.
class Socket {
 public:
  explicit Socket(int fd) : fd_(fd) {}
  ~Socket() {
    if (fd_ >= 0) ::close(fd_);
  }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  int fd() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }

 private:
  int fd_;
};

using Clock = std::chrono::steady_clock;

int remaining_ms(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return left.count() > 0 ? static_cast<int>(left.count()) : 0;
}

// Connects without blocking past the deadline; returns "" or why it failed.
std::string connect_until(int fd, const sockaddr* address, socklen_t length,
                          Clock::time_point deadline) {
  if (::connect(fd, address, length) == 0) return "";
  if (errno != EINPROGRESS) return std::strerror(errno);
  pollfd waiting{fd, POLLOUT, 0};
  const int ready = ::poll(&waiting, 1, remaining_ms(deadline));
  if (ready == 0) return "timed out";
  if (ready < 0) return std::strerror(errno);
  int error = 0;
  socklen_t size = sizeof(error);
  ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size);
  return error == 0 ? "" : std::strerror(error);
}

// Reads exactly `size` bytes, or says why it could not.
std::string read_until(int fd, unsigned char* into, size_t size, Clock::time_point deadline) {
  size_t got = 0;
  while (got < size) {
    pollfd waiting{fd, POLLIN, 0};
    const int ready = ::poll(&waiting, 1, remaining_ms(deadline));
    if (ready == 0) return "timed out waiting for the server's greeting";
    if (ready < 0) return std::strerror(errno);
    const ssize_t n = ::read(fd, into + got, size - got);
    if (n == 0) return "the server closed the connection before its greeting";
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return std::strerror(errno);
    }
    got += static_cast<size_t>(n);
  }
  return "";
}

Outcome<int> connect_socket(const std::string& host, int port, const std::string& socket_path,
                            Clock::time_point deadline) {
  if (!socket_path.empty()) {
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (socket_path.size() >= sizeof(address.sun_path)) {
      return Error{"socket path too long: " + socket_path};
    }
    std::memcpy(address.sun_path, socket_path.c_str(), socket_path.size() + 1);
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return Error{std::strerror(errno)};
    Socket guard(fd);
    const std::string failed =
        connect_until(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address), deadline);
    if (!failed.empty()) return Error{"cannot connect to " + socket_path + ": " + failed};
    return guard.release();
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  if (const int status = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &found);
      status != 0) {
    return Error{"cannot resolve " + host + ": " + ::gai_strerror(status)};
  }
  std::string last = "no address";
  for (addrinfo* at = found; at != nullptr; at = at->ai_next) {
    const int fd =
        ::socket(at->ai_family, at->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, at->ai_protocol);
    if (fd < 0) continue;
    last = connect_until(fd, at->ai_addr, at->ai_addrlen, deadline);
    if (last.empty()) {
      ::freeaddrinfo(found);
      return fd;  // the caller's Socket closes it
    }
    ::close(fd);
  }
  ::freeaddrinfo(found);
  return Error{"cannot connect to " + host + ":" + service + ": " + last};
}

}  // namespace

Outcome<bool> server_offers_tls(const std::string& host, int port, const std::string& socket,
                                Micros timeout) {
  const Clock::time_point deadline = Clock::now() + timeout;
  Outcome<int> connected = connect_socket(host, port, socket, deadline);
  if (!connected) return connected.error();
  const Socket guard(connected.value());
  unsigned char header[4];
  if (std::string failed = read_until(guard.fd(), header, sizeof(header), deadline);
      !failed.empty()) {
    return Error{failed};
  }
  const size_t length = header[0] | (header[1] << 8U) | (header[2] << 16U);
  std::vector<unsigned char> payload(length);
  if (std::string failed = read_until(guard.fd(), payload.data(), length, deadline);
      !failed.empty()) {
    return Error{failed};
  }
  // An error packet instead of a greeting: too many connections, a blocked host, ...
  if (!payload.empty() && payload[0] == 0xFF) {
    const size_t text = length > 3 && payload.size() > 3 && payload[3] == '#' ? 9 : 3;
    return Error{
        "the server refused the connection: " +
        std::string(payload.begin() + static_cast<long>(std::min(text, length)), payload.end())};
  }
  // Protocol 10: version byte, server version (NUL-terminated), thread id (4), scramble (8),
  // filler (1), then the low 16 bits of the capabilities.
  if (payload.empty() || payload[0] != 10) {
    return Error{"not a MySQL protocol 10 greeting"};
  }
  size_t at = 1;
  while (at < payload.size() && payload[at] != 0)
    ++at;
  at += 1 + 4 + 8 + 1;
  if (at + 2 > payload.size()) return Error{"a truncated MySQL greeting"};
  const unsigned capabilities = payload[at] | (payload[at + 1] << 8U);
  return (capabilities & kClientSsl) != 0;
}

}  // namespace outbox
