#include "http_endpoint.hpp"

#include <httplib.h>

#include <cerrno>
#include <charconv>
#include <cstring>

namespace outbox {
namespace {

void answer(const ProbeResult& result, httplib::Response& response) {
  response.status = result.ok ? 200 : 503;
  response.set_content(result.detail + "\n", "text/plain");
}

}  // namespace

Outcome<std::unique_ptr<HttpEndpoint>> HttpEndpoint::start(const std::string& listen,
                                                           HttpHandlers handlers) {
  const size_t colon = listen.rfind(':');
  int port = -1;
  if (colon != std::string::npos) {
    std::from_chars(listen.data() + colon + 1, listen.data() + listen.size(), port);
  }
  if (colon == std::string::npos || port < 0 || port > 65535) {
    return Error{"metrics.listen: \"" + listen + "\" is not host:port"};
  }
  const std::string host = listen.substr(0, colon);
  std::unique_ptr<HttpEndpoint> endpoint(new HttpEndpoint());
  endpoint->server_ = std::make_unique<httplib::Server>();
  httplib::Server& server = *endpoint->server_;
  server.Get("/metrics",
             [metrics = handlers.metrics](const httplib::Request&, httplib::Response& response) {
               response.set_content(metrics(), "text/plain; version=0.0.4; charset=utf-8");
             });
  server.Get("/healthz",
             [healthz = handlers.healthz](const httplib::Request&, httplib::Response& response) {
               answer(healthz(), response);
             });
  server.Get("/readyz",
             [readyz = handlers.readyz](const httplib::Request&, httplib::Response& response) {
               answer(readyz(), response);
             });
  endpoint->port_ = port == 0 ? server.bind_to_any_port(host) : port;
  if (endpoint->port_ < 0 || (port != 0 && !server.bind_to_port(host, port))) {
    return Error{"metrics.listen: cannot listen on " + listen + ": " + std::strerror(errno)};
  }
  endpoint->thread_ = std::thread([&server] { server.listen_after_bind(); });
  return endpoint;
}

HttpEndpoint::~HttpEndpoint() {
  server_->stop();
  if (thread_.joinable()) thread_.join();
}

}  // namespace outbox
