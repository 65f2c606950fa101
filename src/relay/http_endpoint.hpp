#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "outcome.hpp"

namespace httplib {
class Server;
}

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

// GET /metrics, /healthz and /readyz on `listen` ("host:port"; port 0 picks a free one), served
// by cpp-httplib on threads of its own. 200 when a probe is ok, 503 otherwise.
class HttpEndpoint {
 public:
  static Outcome<std::unique_ptr<HttpEndpoint>> start(const std::string& listen,
                                                      HttpHandlers handlers);
  ~HttpEndpoint();
  HttpEndpoint(const HttpEndpoint&) = delete;
  HttpEndpoint& operator=(const HttpEndpoint&) = delete;

  const std::string& host() const { return host_; }
  int port() const { return port_; }

 private:
  HttpEndpoint() = default;

  std::unique_ptr<httplib::Server> server_;
  std::string host_;
  int port_ = 0;
  std::thread thread_;
};

}  // namespace outbox
