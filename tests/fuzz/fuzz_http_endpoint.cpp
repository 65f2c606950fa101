// The metrics endpoint as a client meets it (src/relay/observe/http_endpoint.hpp): the real
// HttpEndpoint, started once in this process on a loopback port, gets each input as the bytes
// of one connection. Whatever arrives, the server answers with an HTTP/1.1 status line or
// closes the connection, and it keeps serving: every 64th input is followed by a well-formed
// GET /healthz that must get its 200. An input whose head parse_request_head takes as complete
// must get the answer its path calls for (fuzz_http_request_head checks the parser itself, on
// every branch; this target adds the poll loop, the reads in pieces, the writes and the close).
// The server is the project's own code, so all of it is instrumented: libFuzzer steers by its
// branches and ASan checks its buffers.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "observe/http_endpoint.hpp"
#include "observe/http_request.hpp"

namespace {

outbox::HttpEndpoint& endpoint() {
  static const std::unique_ptr<outbox::HttpEndpoint> started = [] {
    outbox::HttpHandlers handlers;
    handlers.metrics = [] { return std::string("# TYPE outbox_fuzz gauge\noutbox_fuzz 1\n"); };
    handlers.healthz = [] { return outbox::ProbeResult{true, "ok"}; };
    handlers.readyz = [] { return outbox::ProbeResult{false, "not ready: fuzzing"}; };
    outbox::Outcome<std::unique_ptr<outbox::HttpEndpoint>> outcome =
        outbox::HttpEndpoint::start("127.0.0.1:0", std::move(handlers));
    if (!outcome) std::abort();
    return std::move(outcome).value();
  }();
  return *started;
}

// libFuzzer's own timers (SIGALRM for -timeout, the RSS and the -max_total_time checks) are
// installed without SA_RESTART, so any of the calls below can return EINTR: a CI run stopped on
// "connect: Interrupted system call", a finding about the harness, not the server. send and
// recv are simply called again; an interrupted connect goes on in the kernel and cannot be
// restarted, so its end is awaited with poll and read from SO_ERROR.
bool connect_through_signals(int fd, const sockaddr_in& address) {
  if (connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) == 0) return true;
  if (errno != EINTR) return false;
  pollfd writable{fd, POLLOUT, 0};
  for (;;) {
    const int ready = poll(&writable, 1, 10'000);
    if (ready > 0) break;
    if (ready == 0) errno = ETIMEDOUT;
    if (ready == 0 || errno != EINTR) return false;
  }
  int error = 0;
  socklen_t length = sizeof(error);
  if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) != 0) return false;
  errno = error;
  return error == 0;
}

// Sends the bytes and returns everything the server wrote back until it closed. With
// end_requests the client then shuts its sending side, so the server sees the end of the input
// at once instead of waiting out its header timeout; an input the server still waits on (an
// incomplete head) then gets no answer, only the close: it reads the end as the client gone.
std::string exchange(const uint8_t* data, size_t size, bool end_requests) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) std::abort();
  timeval timeout{10, 0};  // a server that neither answers nor closes is a finding
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(endpoint().port()));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  // The client sends its FIN first (end_requests), so each connection would leave a TIME_WAIT
  // on this side for a minute: at a few thousand inputs a second that exhausts the ~28k
  // ephemeral ports within a 10 s run, and connect() fails with EADDRNOTAVAIL, a finding about
  // the harness, not the server (a fresh-clone run stopped on it). Closing with a zero linger
  // resets instead and leaves none.
  const linger reset{1, 0};
  setsockopt(fd, SOL_SOCKET, SO_LINGER, &reset, sizeof(reset));
  if (!connect_through_signals(fd, address)) {
    std::fprintf(stderr, "connect: %s\n", std::strerror(errno));
    std::abort();  // the endpoint stopped accepting
  }
  size_t sent = 0;
  while (sent < size) {
    const ssize_t n = send(fd, data + sent, size - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // the server may close early on a bad request
    sent += static_cast<size_t>(n);
  }
  if (end_requests) shutdown(fd, SHUT_WR);
  std::string answer;
  char buffer[4096];
  for (;;) {
    const ssize_t n = recv(fd, buffer, sizeof(buffer), 0);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) std::abort();
      break;  // reset by the server
    }
    answer.append(buffer, static_cast<size_t>(n));
  }
  close(fd);
  return answer;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string answer = exchange(data, size, true);
  if (!answer.empty() && answer.rfind("HTTP/1.1 ", 0) != 0) {
    std::fprintf(stderr, "the input got:\n%s\n", answer.c_str());
    std::abort();
  }
  // A complete head is answered whatever bytes follow it, and every prefix of it is incomplete
  // (fuzz_http_request_head), so however the bytes arrive the answer is the path's.
  const outbox::RequestHead head =
      outbox::parse_request_head(std::string_view(reinterpret_cast<const char*>(data), size));
  if (head.state == outbox::RequestHead::State::kComplete) {
    const char* expected = head.path == "/metrics"   ? "HTTP/1.1 200 "
                           : head.path == "/healthz" ? "HTTP/1.1 200 "
                           : head.path == "/readyz"  ? "HTTP/1.1 503 "
                                                     : "HTTP/1.1 404 ";
    if (answer.rfind(expected, 0) != 0) {
      std::fprintf(stderr, "%s %s got:\n%s\n", head.method.c_str(), head.path.c_str(),
                   answer.c_str());
      std::abort();
    }
  }

  static unsigned inputs = 0;
  if (++inputs % 64 == 0) {
    static const std::string probe =
        "GET /healthz HTTP/1.1\r\nHost: fuzz\r\nConnection: close\r\n\r\n";
    const std::string healthz =
        exchange(reinterpret_cast<const uint8_t*>(probe.data()), probe.size(), false);
    if (healthz.rfind("HTTP/1.1 200 ", 0) != 0 ||
        healthz.find("\r\n\r\nok\n") == std::string::npos) {
      std::fprintf(stderr, "GET /healthz after the input got:\n%s\n", healthz.c_str());
      std::abort();
    }
  }
  return 0;
}
