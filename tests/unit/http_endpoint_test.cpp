// The metrics endpoint under hostile clients: hundreds of connections that send half a request
// line and wait, random bytes, a 1 MB header, a huge Content-Length. A liveness probe that gets
// no answer restarts a healthy relay, so /healthz, /readyz and /metrics must still answer, each
// within 1 s (the probe's own timeout here, as a kubelet's would be).
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <deque>
#include <iostream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "observe/http_endpoint.hpp"
#include "observe/http_request.hpp"

using namespace std::chrono_literals;
using outbox::HttpEndpoint;
using outbox::HttpHandlers;
using outbox::HttpLimits;
using outbox::ProbeResult;

namespace {

// A client socket connected to the endpoint; closed by the destructor.
class Client {
 public:
  explicit Client(int port) : fd_(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(port));
    inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
    REQUIRE(connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0);
  }
  ~Client() { close(fd_); }
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // Sends what it can within a short bound (a 1 MB header may not fit the socket buffers of a
  // server that stopped reading: that is the server's right).
  void send_text(const std::string& text) const {
    size_t sent = 0;
    const auto give_up = std::chrono::steady_clock::now() + 2s;
    while (sent < text.size() && std::chrono::steady_clock::now() < give_up) {
      pollfd entry{fd_, POLLOUT, 0};
      if (poll(&entry, 1, 100) <= 0) continue;
      const ssize_t n = send(fd_, text.data() + sent, text.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return;
      sent += static_cast<size_t>(n);
    }
  }
  // Whether the server closed the connection (EOF or reset) within `limit`.
  bool closed_within(std::chrono::milliseconds limit) const {
    pollfd entry{fd_, POLLIN, 0};
    if (poll(&entry, 1, static_cast<int>(limit.count())) <= 0) return false;
    char buffer[4096];
    return recv(fd_, buffer, sizeof(buffer), 0) <= 0;
  }
  // Everything received until the server closes, or until `limit` passes.
  std::string read_until_closed(std::chrono::milliseconds limit) const {
    std::string out;
    const auto deadline = std::chrono::steady_clock::now() + limit;
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left <= 0ms) return out;
      pollfd entry{fd_, POLLIN, 0};
      if (poll(&entry, 1, static_cast<int>(left.count())) <= 0) return out;
      char buffer[4096];
      const ssize_t n = recv(fd_, buffer, sizeof(buffer), 0);
      if (n <= 0) return out;
      out.append(buffer, static_cast<size_t>(n));
    }
  }

 private:
  int fd_;
};

HttpHandlers handlers() {
  return HttpHandlers{[] { return std::string("outbox_relay_up 1\n"); },
                      [] {
                        return ProbeResult{true, "ok"};
                      },
                      [] {
                        return ProbeResult{false, "kafka unreachable"};
                      }};
}

std::string get(int port, const std::string& path, std::chrono::milliseconds limit = 1000ms) {
  Client client(port);
  client.send_text("GET " + path + " HTTP/1.1\r\nHost: localhost\r\n\r\n");
  return client.read_until_closed(limit);
}

}  // namespace

TEST_CASE("the probes answer within 1 s while hostile clients hold 300 connections", "[http]") {
  auto started = HttpEndpoint::start("127.0.0.1:0", handlers());
  REQUIRE(started);
  const int port = started.value()->port();

  std::vector<std::unique_ptr<Client>> hostile;
  // Half a request line, then silence.
  for (int i = 0; i < 300; ++i) {
    hostile.push_back(std::make_unique<Client>(port));
    hostile.back()->send_text("GET /metr");
  }
  // Random bytes.
  std::mt19937 random(42);
  for (int i = 0; i < 20; ++i) {
    std::string junk(512, '\0');
    for (char& c : junk)
      c = static_cast<char>(random());
    hostile.push_back(std::make_unique<Client>(port));
    hostile.back()->send_text(junk);
  }
  // A 1 MB header and a huge Content-Length: each is answered with an error and closed.
  Client big_header(port);
  big_header.send_text("GET /metrics HTTP/1.1\r\nX-Junk: " + std::string(1 << 20, 'a') +
                       "\r\n\r\n");
  Client huge_body(port);
  huge_body.send_text("POST /metrics HTTP/1.1\r\nContent-Length: 99999999999999\r\n\r\nxx");

  for (const char* path : {"/healthz", "/readyz", "/metrics"}) {
    const auto asked = std::chrono::steady_clock::now();
    const std::string answer = get(port, path);
    const auto took =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - asked).count();
    INFO(path << " answered after " << took << " ms: " << answer);
    std::cout << "[figures] " << path << " answered in " << took << " ms beside 322 hostile "
              << "connections\n";
    if (std::string(path) == "/readyz") {
      CHECK(answer.rfind("HTTP/1.1 503 ", 0) == 0);
      CHECK(answer.find("\r\n\r\nkafka unreachable\n") != std::string::npos);
    } else {
      CHECK(answer.rfind("HTTP/1.1 200 OK\r\n", 0) == 0);
    }
    if (std::string(path) == "/metrics") {
      CHECK(answer.find("\r\n\r\noutbox_relay_up 1\n") != std::string::npos);
    }
  }
  CHECK(big_header.read_until_closed(2000ms).rfind("HTTP/1.1 431 ", 0) == 0);
  CHECK(huge_body.read_until_closed(2000ms).rfind("HTTP/1.1 413 ", 0) == 0);
}

TEST_CASE("a flood of new connections does not push the probes out", "[http]") {
  // Up to 64 connections are kept; each new one beyond evicts one. A flood that keeps
  // connecting (and says nothing) must evict its own connections, never a probe that has
  // already sent its request.
  auto started = HttpEndpoint::start("127.0.0.1:0", handlers());
  REQUIRE(started);
  const int port = started.value()->port();
  std::atomic<bool> flooding{true};
  std::atomic<int> opened{0};
  // Raw sockets (Catch's assertions are not for other threads), connecting without waiting.
  const auto flood_loop = [&] {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(port));
    inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
    std::deque<int> held;
    // Closed with a reset (linger 0): no TIME_WAIT, so the flood leaves the machine's
    // ephemeral ports to the tests running beside this one.
    const auto drop = [](int fd) {
      const linger reset{1, 0};
      setsockopt(fd, SOL_SOCKET, SO_LINGER, &reset, sizeof(reset));
      close(fd);
    };
    for (int made = 0; flooding.load() && made < 10000; ++made) {
      const int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
      if (fd < 0) continue;
      connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address));
      held.push_back(fd);
      opened.fetch_add(1);
      if (held.size() > 200) {
        drop(held.front());
        held.pop_front();
      }
    }
    for (const int fd : held)
      drop(fd);
  };
  std::thread flood(flood_loop);
  std::thread flood_too(flood_loop);
  // The probes start once the flood has filled the table at least three times over.
  const auto flood_deadline = std::chrono::steady_clock::now() + 30s;
  while (opened.load() < 200 && std::chrono::steady_clock::now() < flood_deadline)
    std::this_thread::yield();
  int answered = 0;
  for (int i = 0; i < 40; ++i) {
    const std::string answer = get(port, i % 2 == 0 ? "/readyz" : "/healthz", 5000ms);
    INFO("probe " << i << " after " << opened.load() << " flood connections: " << answer);
    CHECK(answer.rfind(i % 2 == 0 ? "HTTP/1.1 503 " : "HTTP/1.1 200 ", 0) == 0);
    if (!answer.empty()) ++answered;
  }
  flooding.store(false);
  flood.join();
  flood_too.join();
  std::cout << "[figures] " << answered << " of 40 probes answered beside " << opened.load()
            << " flood connections\n";
  CHECK(opened.load() > 64);  // the flood did overflow the endpoint's table
}

TEST_CASE("a client that trickles its request head is cut off at the header timeout", "[http]") {
  HttpLimits limits;
  limits.header_timeout = 300ms;
  auto started = HttpEndpoint::start("127.0.0.1:0", handlers(), limits);
  REQUIRE(started);
  Client slow(started.value()->port());
  slow.send_text("GET /healthz HTTP/1.1\r\n");
  // A byte every 50 ms, never the blank line: only the header timeout ends this (the 8 KiB head
  // limit would take minutes), so the server closing the connection is the timeout at work.
  bool closed = false;
  for (int i = 0; i < 200 && !closed; ++i) {
    slow.send_text("X");
    closed = slow.closed_within(50ms);
  }
  CHECK(closed);
}

TEST_CASE("request heads: what the endpoint answers and what it refuses", "[http]") {
  using outbox::parse_request_head;
  using State = outbox::RequestHead::State;
  CHECK(parse_request_head("GET /metr").state == State::kIncomplete);
  const auto ok = parse_request_head("GET /metrics?x=1 HTTP/1.1\r\nHost: a\r\n\r\n");
  CHECK(ok.state == State::kComplete);
  CHECK(ok.path == "/metrics");
  CHECK(parse_request_head("HEAD /healthz HTTP/1.0\r\n\r\n").method == "HEAD");
  CHECK(parse_request_head("\x01\x02junk").status == 400);
  CHECK(parse_request_head(std::string(20, 'A')).status == 400);
  CHECK(parse_request_head("POST /metrics HTTP/1.1\r\n\r\n").status == 405);
  CHECK(parse_request_head("GET /metrics HTTP/1.1\r\nContent-Length: 5\r\n\r\n").status == 413);
  CHECK(parse_request_head("GET /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n").state ==
        State::kComplete);
  CHECK(parse_request_head("GET /metrics HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n").status ==
        413);
  CHECK(parse_request_head("GET /metrics HTTP/2.0\r\n\r\n").status == 505);
  CHECK(parse_request_head("GET metrics HTTP/1.1\r\n\r\n").status == 400);
  CHECK(parse_request_head("GET /metrics HTTP/1.1\r\nno colon\r\n\r\n").status == 400);
  CHECK(parse_request_head("GET / HTTP/1.1\r\nX: " + std::string(9000, 'a')).status == 431);
}
