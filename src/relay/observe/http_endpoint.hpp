#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "outcome.hpp"

namespace outbox {

// A probe's answer: healthy/ready or not, and why (the response body).
struct ProbeResult {
  bool ok = false;
  std::string detail;
};

struct HttpHandlers {
  std::function<std::string()> metrics;  // Prometheus text exposition
  std::function<ProbeResult()> healthz;
  std::function<ProbeResult()> readyz;
};

// metrics.listen, "host:port" with a decimal port 0..65535 (0 picks a free one) and a host
// before the colon (an IPv6 address keeps its colons: the port follows the last one).
struct ListenAddress {
  std::string host;
  int port = 0;
};
std::optional<ListenAddress> parse_listen(const std::string& listen);

// Limits that keep the probes answering whatever clients do: a liveness probe that times out
// gets a healthy relay restarted, so no client may hold the endpoint.
struct HttpLimits {
  // Open connections; at the limit a new connection closes the oldest one, so clients that
  // connect and send nothing can never lock a probe out.
  size_t max_connections = 64;
  // From accept to the end of the request head; a client that trickles bytes is cut off here.
  std::chrono::milliseconds header_timeout{2000};
  // For writing the answer to a client that does not read it.
  std::chrono::milliseconds write_timeout{5000};
};

// GET (or HEAD) /metrics, /healthz and /readyz on `listen` ("host:port"; port 0 picks a free
// one). 200 when a probe is ok, 503 otherwise. One thread serves every connection with
// non-blocking sockets, so idle or slow clients cost a file descriptor each, never a thread;
// every answer closes its connection (no keep-alive to hold open), request heads are capped at
// kMaxRequestHead and request bodies refused (see http_request.hpp).
class HttpEndpoint {
 public:
  static Outcome<std::unique_ptr<HttpEndpoint>> start(const std::string& listen,
                                                      HttpHandlers handlers,
                                                      HttpLimits limits = {});
  ~HttpEndpoint();
  HttpEndpoint(const HttpEndpoint&) = delete;
  HttpEndpoint& operator=(const HttpEndpoint&) = delete;

  const std::string& host() const { return host_; }
  int port() const { return port_; }

 private:
  struct Loop;
  HttpEndpoint() = default;

  std::string host_;
  int port_ = 0;
  int listen_fd_ = -1;
  int wake_fd_ = -1;  // eventfd: the destructor wakes the loop to stop
  std::unique_ptr<Loop> loop_;
  std::thread thread_;
};

}  // namespace outbox
