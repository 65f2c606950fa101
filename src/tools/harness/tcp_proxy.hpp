#pragma once

#include <atomic>
#include <string>
#include <thread>

namespace outbox::harness {

// A TCP forwarder on loopback between a client (a writer, a consumer) and its server, to lose an
// answer on the wire: after lose_next_reply(), the next bytes the server sends are dropped and both
// connections of that pair are closed. The client's request reached the server and ran (the
// server answers only after it finished, e.g. after a COMMIT is durable); the client sees a
// lost connection. Connections opened later are forwarded normally.
class TcpProxy {
 public:
  TcpProxy(const std::string& upstream_host, int upstream_port);
  ~TcpProxy();
  TcpProxy(const TcpProxy&) = delete;
  TcpProxy& operator=(const TcpProxy&) = delete;

  int port() const { return port_; }
  void lose_next_reply() { lose_next_reply_.store(true); }
  // How many answers were dropped so far.
  int replies_lost() const { return replies_lost_.load(); }

 private:
  void serve(const std::stop_token& stop);

  std::string upstream_host_;
  int upstream_port_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> lose_next_reply_{false};
  std::atomic<int> replies_lost_{0};
  std::jthread thread_;
};

}  // namespace outbox::harness
