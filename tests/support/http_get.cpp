#include "http_get.hpp"

#include <httplib.h>

#include <thread>

namespace outbox::test {

HttpAnswer http_get(int port, const std::string& path) {
  httplib::Client client("127.0.0.1", port);
  client.set_read_timeout(5, 0);
  const auto result = client.Get(path.c_str());
  if (!result) return {};
  return {result->status, result->body};
}

std::string answers_other_than(int port, const std::string& path, int expected,
                               std::chrono::milliseconds window) {
  std::string others;
  const auto until = std::chrono::steady_clock::now() + window;
  while (std::chrono::steady_clock::now() < until) {
    const HttpAnswer answer = http_get(port, path);
    if (answer.status != expected) {
      others += std::to_string(answer.status) + " " + answer.body;
      if (others.back() != '\n') others += '\n';
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return others;
}

}  // namespace outbox::test
