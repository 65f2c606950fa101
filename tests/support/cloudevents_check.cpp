#include "cloudevents_check.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <vector>

#include "child_process.hpp"
#include "harness/kafka_tools.hpp"
#include "planner_process.hpp"
#include "poll.hpp"
#include "test_env.hpp"

namespace outbox::test {
namespace {

std::vector<std::string> sorted_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) lines.push_back(line);
  }
  std::sort(lines.begin(), lines.end());
  return lines;
}

}  // namespace

long long check_cloudevents_on_topic(const TestDatabase& db, const std::string& bootstrap,
                                     const std::string& topic, const std::string& source) {
  const std::string python = source_dir() + "/.local/python-tools/bin/python3";
  INFO("the CloudEvents SDK's venv: " << python << " (made by scripts/python-tools.sh)");
  REQUIRE(std::filesystem::exists(python));
  const auto records = run_command(
      {"kcat", "-b", bootstrap, "-C", "-t", topic, "-o", "beginning", "-e", "-q", "-J"});
  REQUIRE(records.status == 0);
  const auto decoded =
      run_command({python, source_dir() + "/tests/tools/cloudevents_decode.py"}, records.out);
  INFO("cloudevents_decode.py: " << decoded.err);
  REQUIRE(decoded.status == 0);
  const std::vector<std::string> seen = sorted_lines(decoded.out);

  // The same fields from the rows, in the decoder's order and notation.
  const std::string fields =
      "CONCAT_WS('|', event_id, '1.0', '" + source +
      "', event_type, CAST(UNIX_TIMESTAMP(created_at) * 1000000 AS SIGNED), aggregate_id, "
      "'application/json', aggregate_type, event_version, aggregate_id, "
      "COALESCE(JSON_UNQUOTE(JSON_EXTRACT(payload, '$.order_id')), '-'), "
      "COALESCE(traceparent, '-'))";
  std::vector<std::string> expected;
  for (const auto& row :
       db.query("SELECT " + fields + " FROM outbox_event WHERE status = 'PUBLISHED'"))
    expected.push_back(row.at(0));
  std::sort(expected.begin(), expected.end());
  INFO("first decoded: " << (seen.empty() ? "(none)" : seen.front()) << "\nfirst expected: "
                         << (expected.empty() ? "(none)" : expected.front()));
  CHECK(seen.size() == expected.size());
  CHECK(seen == expected);
  return static_cast<long long>(seen.size());
}

void run_cloudevents_profile(const std::string& bootstrap, RelayTestConfig relay_settings,
                             bool planner) {
  constexpr int kEvents = 200;
  const std::string source = "https://shop.example.com/orders";
  const std::string traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
  TestDatabase db;
  db.insert_order_accepted_events(kEvents, "ce");
  db.exec("UPDATE outbox_event SET traceparent = '" + traceparent + "' WHERE aggregate_id % 2 = 1");
  relay_settings.extra_kafka_settings +=
      "  profile: cloudevents\n  cloudevents_source: " + source + "\n";
  {
    RelayProcess relay(db, bootstrap, relay_settings);
    REQUIRE(eventually([&] { return db.count("status = 'PUBLISHED'") == kEvents; }));
    stop_gracefully(relay);
  }
  CHECK(check_cloudevents_on_topic(db, bootstrap, kOrderTopic, source) == kEvents);
  if (!planner) return;

  // A redelivery of the first event, as a producer retry or a replay would make it: the same
  // CloudEvent again, produced by kcat.
  const auto first = harness::read_topic_exact(bootstrap, kOrderTopic).front();
  std::vector<std::string> headers;
  for (const auto& [name, value] : first.headers)
    headers.push_back(name + "=" + value.value_or(""));
  harness::produce_with_kcat(bootstrap, kOrderTopic, first.partition, first.key.value_or(""),
                             headers, {first.value.value_or("")});
  REQUIRE(harness::read_topic(bootstrap, kOrderTopic).size() == kEvents + 1);

  PlannerProcess consumer(db, bootstrap, PlannerTestConfig{});
  REQUIRE(eventually([&] {
    return db.count_rows("notification_job") == kEvents &&
           consumer.count("(duplicate delivery)") == 1;
  }));
  consumer.stop_gracefully();
  CHECK(db.count_rows("consumed_event") == kEvents);
  // Each job is its event's, with the payload's order id, and the trace id where the row had one.
  CHECK(db.count_rows("notification_job j JOIN outbox_event e ON e.event_id = j.event_id",
                      "j.order_id = JSON_EXTRACT(e.payload, '$.order_id') AND "
                      "(j.trace_id <=> SUBSTRING(e.traceparent, 4, 32))") == kEvents);
  CHECK(consumer.count("sent to dead-letter topic") == 0);
}

}  // namespace outbox::test
