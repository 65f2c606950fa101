#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace outbox::test {

// A NOTIFY_SOCKET as systemd provides it (a unix datagram socket): start a process with
// NOTIFY_SOCKET=path() and read what it sends with sd_notify().
class NotifySocket {
 public:
  explicit NotifySocket(const std::string& path);
  ~NotifySocket();
  NotifySocket(const NotifySocket&) = delete;
  NotifySocket& operator=(const NotifySocket&) = delete;

  // One "KEY=value" line of a datagram, and when this socket read it (the caller's polling
  // bounds how late that is).
  struct Notification {
    std::string text;
    std::chrono::steady_clock::time_point received_at;
  };

  const std::string& path() const { return path_; }
  // Every message received so far (each "KEY=value" line of a datagram is one entry).
  const std::vector<std::string>& messages();
  // The same messages with the time each was read.
  const std::vector<Notification>& notifications();
  // Waits (polling, bounded) until a message starting with `prefix` arrived.
  bool wait_for(const std::string& prefix,
                std::chrono::milliseconds limit = std::chrono::seconds(60));

 private:
  void drain();

  std::string path_;
  int fd_ = -1;
  std::vector<std::string> messages_;
  std::vector<Notification> notifications_;
};

}  // namespace outbox::test
