#include "http_scrape.hpp"

#include <httplib.h>

#include <sstream>
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

double metric_sample(const std::string& exposition, const std::string& series) {
  std::istringstream lines(exposition);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(series + " ", 0) == 0) return std::stod(line.substr(series.size() + 1));
  }
  return -1;
}

double metric_family_total(const std::string& exposition, const std::string& family) {
  std::istringstream lines(exposition);
  double total = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(family + "{", 0) != 0) continue;
    const size_t value = line.rfind(' ');
    if (value != std::string::npos) total += std::stod(line.substr(value + 1));
  }
  return total;
}

std::string KafkaRequestCounters::figures() const {
  const auto number = [](double value) { return std::to_string(static_cast<long long>(value)); };
  return "retries " + number(retries) + ", request timeouts " + number(timeouts) +
         ", transmit errors " + number(transmit_errors) + ", disconnects " + number(disconnects) +
         ", " + number(messages_transmitted) + " messages transmitted for " +
         number(events_claimed) + " claimed events";
}

KafkaRequestCounters kafka_request_counters(int metrics_port) {
  const std::string metrics = http_get(metrics_port, "/metrics").body;
  return {metric_sample(metrics, "outbox_relay_kafka_request_retries_total"),
          metric_sample(metrics, "outbox_relay_kafka_request_timeouts_total"),
          metric_sample(metrics, "outbox_relay_kafka_transmit_errors_total"),
          metric_sample(metrics, "outbox_relay_kafka_disconnects_total"),
          metric_sample(metrics, "outbox_relay_kafka_messages_transmitted_total"),
          metric_sample(metrics, "outbox_relay_events_claimed_total")};
}

}  // namespace outbox::test
