#pragma once

#include <chrono>
#include <string>

namespace outbox::test {

// What an HTTP GET to the relay's metrics port answered; status 0 when nothing answered.
struct HttpAnswer {
  int status = 0;
  std::string body;
};

// GET http://127.0.0.1:port/path (e.g. /readyz), waiting at most 5 s for the answer.
HttpAnswer http_get(int port, const std::string& path);

// Asks path every 100 ms for `window` (a state that must hold throughout, e.g. healthy while a
// worker waits); returns each answer whose status was not `expected`, one "status body" per
// line, or "" when every answer was.
std::string answers_other_than(int port, const std::string& path, int expected,
                               std::chrono::milliseconds window);

}  // namespace outbox::test
