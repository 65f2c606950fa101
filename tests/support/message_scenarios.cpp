#include "message_scenarios.hpp"

#include <catch2/catch.hpp>

#include <iostream>
#include <map>
#include <vector>

#include "poll.hpp"
#include "relay_process.hpp"
#include "test_database.hpp"
#include "test_kafka.hpp"

namespace outbox::test {
namespace {

// A string literal with its NUL bytes.
template <size_t N>
std::string bytes(const char (&literal)[N]) {
  return std::string(literal, N - 1);
}

std::string printable(const std::optional<std::string>& bytes) {
  if (!bytes) return "(null)";
  std::string out = "\"";
  for (const char c : *bytes) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7f && c != '\\' && c != '"') {
      out.push_back(c);
    } else {
      out += "\\x" + to_hex(std::string(1, c));
    }
  }
  return out + "\"";
}

}  // namespace

std::string to_hex(const std::string& bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (const char c : bytes) {
    const auto byte = static_cast<unsigned char>(c);
    out.push_back(kDigits[byte >> 4]);
    out.push_back(kDigits[byte & 0xf]);
  }
  return out;
}

std::string describe_record(const std::string& topic, const harness::ExactRecord& record) {
  std::string headers;
  for (const auto& [name, value] : record.headers)
    headers += (headers.empty() ? "" : ", ") + name + "=" + printable(value);
  return topic + "/" + std::to_string(record.partition) + "@" + std::to_string(record.offset) +
         " key=" + printable(record.key) + " headers=[" + headers +
         "] value=" + printable(record.value);
}

void run_debezium_profile(const std::string& bootstrap) {
  TestDatabase db;
  db.insert_events(3, "dbz", "order", 2);
  RelayTestConfig settings;
  settings.extra_kafka_settings = "  profile: debezium\n";
  RelayProcess relay(db, bootstrap, settings);
  REQUIRE(eventually([&] { return db.count("status = 'PUBLISHED'") == 3; }));
  stop_gracefully(relay);

  const auto records = harness::read_topic_exact(bootstrap, "outbox.event.order");
  REQUIRE(records.size() == 3);
  std::map<std::string, int> seen;
  for (const auto& record : records) {
    INFO(describe_record("outbox.event.order", record));
    REQUIRE(record.headers.size() == 1);
    REQUIRE(record.headers[0].first == "id");
    REQUIRE(record.headers[0].second);
    const std::string id = *record.headers[0].second;
    const int seq = std::stoi(id.substr(4));
    CHECK(id == event_id("dbz", seq));
    CHECK(record.key == "agg-" + std::to_string(seq % 2));
    CHECK(record.value == "{\"seq\": " + std::to_string(seq) + "}");
    ++seen[id];
  }
  CHECK(seen.size() == 3);
  std::cout << "[kcat] debezium profile: " << describe_record("outbox.event.order", records[0])
            << "\n";
}

void run_binary_payloads(const std::string& bootstrap, const std::string& column_type) {
  // NUL bytes, invalid UTF-8 (a lone continuation byte, a truncated sequence, 0xff), the
  // separators kcat's text reader uses (\x1e \x1f) and ',' '=' '\n'; an empty payload.
  const std::vector<std::string> payloads = {
      bytes("\x00\x01\x02\x00"), bytes("\x80\xc3\x28\xff\xfe\x1e\x1f,=\n\x00 avro"), std::string(),
      bytes("\x0a\x05hello\x10\x2a"),  // a protobuf message: field 1 "hello", field 2 = 42
  };
  TestDatabase db;
  db.exec("ALTER TABLE outbox_event MODIFY payload " + column_type + " NOT NULL");
  for (size_t i = 0; i < payloads.size(); ++i) {
    const std::string id = event_id("bin", static_cast<int>(i + 1));
    // X'' is not valid SQL for an empty literal on every server; '' is the empty byte string.
    const std::string literal = payloads[i].empty() ? "''" : "X'" + to_hex(payloads[i]) + "'";
    db.exec(
        "INSERT INTO outbox_event (event_id, aggregate_type, aggregate_id, event_type, "
        "event_version, payload, status, created_at) VALUES ('" +
        id + "', 'order', 'agg-" + std::to_string(i) + "', 'ORDER_ACCEPTED', 1, " + literal +
        ", 'PENDING', CURRENT_TIMESTAMP(6) + INTERVAL " + std::to_string(i) + " MICROSECOND)");
  }
  // The database holds the bytes (read by the mariadb CLI, as hex; "x" keeps the empty one a
  // value).
  for (size_t i = 0; i < payloads.size(); ++i) {
    CHECK(db.scalar("SELECT CONCAT('x', LOWER(HEX(payload))) FROM outbox_event WHERE event_id = '" +
                    event_id("bin", static_cast<int>(i + 1)) + "'") == "x" + to_hex(payloads[i]));
  }
  RelayProcess relay(db, bootstrap, RelayTestConfig{});
  REQUIRE(eventually([&] { return db.count("status = 'PUBLISHED'") == 4; }));
  stop_gracefully(relay);

  const auto records = harness::read_topic_exact(bootstrap, "outbox.order");
  REQUIRE(records.size() == payloads.size());
  std::map<std::string, std::string> value_of;
  for (const auto& record : records) {
    REQUIRE(record.header("event_id"));
    REQUIRE(record.value);  // an empty payload is an empty value, never a null one
    value_of[*record.header("event_id")] = *record.value;
  }
  for (size_t i = 0; i < payloads.size(); ++i) {
    const std::string id = event_id("bin", static_cast<int>(i + 1));
    INFO(id);
    CHECK(to_hex(value_of[id]) == to_hex(payloads[i]));
  }
  for (const auto& record : records) {
    if (record.header("event_id") == event_id("bin", 2)) {
      std::cout << "[kcat] binary payload (" << column_type
                << "): " << describe_record("outbox.order", record) << "\n";
    }
  }
}

}  // namespace outbox::test
