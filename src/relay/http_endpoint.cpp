#include "http_endpoint.hpp"

#include <httplib.h>

#include <cerrno>
#include <cstring>

namespace outbox {
namespace {

void answer(const ProbeResult& result, httplib::Response& response) {
  response.status = result.ok ? 200 : 503;
  response.set_content(result.detail + "\n", "text/plain");
}

}  // namespace

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
                                                           HttpHandlers handlers) {
  const std::optional<ListenAddress> address = parse_listen(listen);
  if (!address) return Error{"metrics.listen: \"" + listen + "\" is not host:port"};
  const std::string& host = address->host;
  const int port = address->port;
  std::unique_ptr<HttpEndpoint> endpoint(new HttpEndpoint());
  endpoint->host_ = host;
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
