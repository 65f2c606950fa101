#pragma once

#include <chrono>
#include <string>

namespace outbox::test {

// One answer of a daemon's HTTP endpoint (/metrics, /healthz, /readyz).
struct HttpAnswer {
  int status = 0;  // 0: no answer (connection refused, timed out)
  std::string body;
};

// GET http://127.0.0.1:<port><path>, with a 5 s read timeout.
HttpAnswer http_get(int port, const std::string& path);

// Asks path every 100 ms for `window` (a state that must hold throughout, e.g. healthy while a
// worker waits); returns each answer whose status was not `expected`, one "status body" per
// line, or "" when every answer was.
std::string answers_other_than(int port, const std::string& path, int expected,
                               std::chrono::milliseconds window);

// The value of one sample line ("name{labels} value") of a Prometheus exposition; -1 when the
// series is not there.
double metric_sample(const std::string& exposition, const std::string& series);
// The sum of every sample of a labelled family ("name{...} value" lines), e.g. the
// publish failures of every reason; 0 when it has none yet.
double metric_family_total(const std::string& exposition, const std::string& family);

// librdkafka's request counters as a relay's /metrics shows them (outbox_relay_kafka_*_total,
// from its statistics).
struct KafkaRequestCounters {
  double retries = -1;
  double timeouts = -1;
  double transmit_errors = -1;
  double disconnects = -1;
  double messages_transmitted = -1;  // resends included
  double events_claimed = -1;        // outbox_relay_events_claimed_total, to compare with
  // "retries 12, request timeouts 0, transmit errors 3, disconnects 4, 1510 messages
  // transmitted for 1500 claimed events"
  std::string figures() const;
};
KafkaRequestCounters kafka_request_counters(int metrics_port);

}  // namespace outbox::test
