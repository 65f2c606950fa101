#include "notify_socket.hpp"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <array>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace outbox::test {

NotifySocket::NotifySocket(const std::string& path) : path_(path) {
  fd_ = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, path.c_str(), sizeof(address.sun_path) - 1);
  unlink(path.c_str());
  if (bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    throw std::runtime_error("cannot bind " + path + ": " + std::strerror(errno));
  }
}

NotifySocket::~NotifySocket() {
  close(fd_);
  unlink(path_.c_str());
}

void NotifySocket::drain() {
  std::array<char, 4096> buffer{};
  for (;;) {
    const ssize_t n = recv(fd_, buffer.data(), buffer.size(), 0);
    if (n <= 0) return;
    const auto now = std::chrono::steady_clock::now();
    std::istringstream lines(std::string(buffer.data(), static_cast<size_t>(n)));
    for (std::string line; std::getline(lines, line);) {
      messages_.push_back(line);
      notifications_.push_back(Notification{line, now});
    }
  }
}

const std::vector<std::string>& NotifySocket::messages() {
  drain();
  return messages_;
}

const std::vector<NotifySocket::Notification>& NotifySocket::notifications() {
  drain();
  return notifications_;
}

bool NotifySocket::wait_for(const std::string& prefix, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    for (const std::string& message : messages()) {
      if (message.rfind(prefix, 0) == 0) return true;
    }
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace outbox::test
