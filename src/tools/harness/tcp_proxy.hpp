#pragma once

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>

namespace outbox::harness {

// A TCP forwarder on loopback between clients (a writer, a consumer, the relay) and one server
// (MariaDB, a Kafka broker), to break the wire between them on purpose:
// - lose_next_reply(): the next bytes the server sends are dropped and both connections of that
//   pair are closed. The client's request reached the server and ran (the server answers only
//   after it finished, e.g. after a COMMIT is durable); the client sees a lost connection.
// - drop_replies(): from now on requests still reach the server, every answer is dropped, and
//   connections stay open (a one-way partition: the client waits for answers that never come).
// - cut(): nothing passes either way, new connections are accepted and hang (a partition).
// - heal(): every connection a fault touched is closed (the client reconnects and resends what
//   it never got an answer to); new connections are forwarded normally again.
// - delay_replies(ms): every answer is held back `ms` before it is passed on, in order (the
//   mock cluster's `rtt`, for a real server): requests run at once, the client learns late.
//   delay_replies(0) stops delaying; answers already held still leave at their time. Not a
//   fault heal() ends: connections stay open throughout.
class TcpProxy {
 public:
  TcpProxy(std::string upstream_host, int upstream_port);
  // Listens at once; forwards only after set_upstream() (connections before that are refused),
  // for a server that must be told the proxy's port before it starts (a Kafka node's
  // advertised listener).
  TcpProxy();
  ~TcpProxy();
  TcpProxy(const TcpProxy&) = delete;
  TcpProxy& operator=(const TcpProxy&) = delete;

  int port() const { return port_; }
  void set_upstream(const std::string& host, int port);
  void lose_next_reply() { lose_next_reply_.store(true); }
  void drop_replies() { mode_.store(Mode::kDropReplies); }
  void cut() { mode_.store(Mode::kCut); }
  void heal() { heal_requested_.store(true); }
  void delay_replies(std::chrono::milliseconds delay) { reply_delay_ms_.store(delay.count()); }
  // How many answers were dropped so far (lose_next_reply, or chunks under drop_replies/cut).
  int replies_lost() const { return replies_lost_.load(); }
  // Chunks of client bytes that reached the server while replies were dropped: proof that
  // requests did arrive (and ran) while their answers were lost.
  int requests_passed_while_dropping() const { return requests_passed_.load(); }

 private:
  enum class Mode { kForward, kDropReplies, kCut };
  void start_listening();
  void serve(const std::stop_token& stop);

  mutable std::mutex upstream_mutex_;
  std::string upstream_host_;
  int upstream_port_ = 0;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> lose_next_reply_{false};
  std::atomic<Mode> mode_{Mode::kForward};
  std::atomic<bool> heal_requested_{false};
  std::atomic<int64_t> reply_delay_ms_{0};
  std::atomic<int> replies_lost_{0};
  std::atomic<int> requests_passed_{0};
  std::jthread thread_;
};

}  // namespace outbox::harness
