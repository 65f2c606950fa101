// Memory follows bytes, not rows: 600 events of 900 KB (legal for Kafka's 1 MB default) with
// the default batch of 500 once drove the relay to 1,375 MiB; a 512 MiB container would have
// crash-looped on them forever. With the byte budget (relay.max_in_flight_bytes, 64 MiB) the
// relay holds at most that much payload, fetches only the payloads of rows it leases, and
// hands them to librdkafka without a copy. Events of 2 MB (above the producer's
// message.max.bytes) are FAILED with the reason. On the real cluster.
#include <catch2/catch.hpp>

#include <fstream>
#include <iostream>
#include <sstream>

#include "harness/sequence_rows.hpp"
#include "poll.hpp"
#include "relay_process.hpp"
#include "test_database.hpp"
#include "test_kafka.hpp"

using namespace outbox::test;

namespace {

// The relay's peak resident set, from /proc (VmHWM, in KiB).
long long peak_rss_kib(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stoll(line.substr(6));
  }
  return -1;
}

// Each record's event_id header and value size, read with kcat without the values themselves.
std::map<std::string, long long> sizes_on_topic(const std::string& bootstrap,
                                                const std::string& topic) {
  const CommandResult result = run_command({"kcat", "-b", bootstrap, "-C", "-t", topic, "-o",
                                            "beginning", "-e", "-q", "-f", "%h %S\\n"});
  REQUIRE(result.status == 0);
  std::map<std::string, long long> sizes;
  std::istringstream lines(result.out);
  for (std::string line; std::getline(lines, line);) {
    const size_t at = line.find("event_id=");
    const size_t end = line.find(',', at);
    const std::string id = line.substr(at + 9, end - at - 9);
    sizes[id] = std::stoll(line.substr(line.rfind(' ') + 1));
  }
  return sizes;
}

}  // namespace

TEST_CASE("600 events of 900 KB drain within 300 MiB, 2 MB events FAILED with the reason",
          "[kafka]") {
  TestKafkaCluster cluster;
  cluster->create_topic("outbox.order", 4);
  TestDatabase db;
  // 600 of ~900 KB (one per aggregate, so none waits on another) and 3 of ~2 MB.
  db.exec(
      "INSERT INTO outbox_event (event_id, aggregate_type, aggregate_id, event_type, "
      "event_version, payload, status, created_at) SELECT CONCAT('big-', LPAD(seq, 32, '0')), "
      "'order', CONCAT('agg-', seq), 'X', 1, JSON_OBJECT('blob', REPEAT('x', IF(seq % 200 = 0, "
      "2000000, 900000))), 'PENDING', CURRENT_TIMESTAMP(6) - INTERVAL 1 HOUR + INTERVAL seq "
      "MICROSECOND FROM " +
      outbox::harness::sequence_rows(1, 603));
  RelayProcess relay(db, cluster.bootstrap(), RelayTestConfig{});  // batch_size 500, defaults
  // 540 MB, three copies of each on one machine: up to 5 minutes where other tests' clusters
  // share the cores (a liveness bound, not a speed bar; the benchmarks time throughput).
  REQUIRE(eventually([&] { return db.count("status IN ('PUBLISHED', 'FAILED')") == 603; },
                     std::chrono::minutes(5)));
  const long long peak_kib = peak_rss_kib(relay.process().pid());
  stop_gracefully(relay);

  CHECK(db.count("status = 'PUBLISHED'") == 600);
  CHECK(db.count("status = 'FAILED' AND payload_bytes > 1500000 AND last_error LIKE "
                 "'MSG_SIZE_TOO_LARGE:%'") == 3);
  const std::map<std::string, long long> sizes =
      sizes_on_topic(cluster.bootstrap(), "outbox.order");
  CHECK(sizes.size() == 600);
  for (const auto& [id, size] : sizes) {
    INFO(id);
    CHECK(size > 900000);
    CHECK(size < 1000000);
  }
  INFO("peak RSS " << peak_kib / 1024 << " MiB");
  CHECK(peak_kib > 0);
  CHECK(peak_kib <= 300 * 1024);
  std::cout << "[figures] byte budget on the Kafka " << cluster->version() << " cluster: 600 "
            << "events of 900 KB + 3 of 2 MB, batch_size 500, max_in_flight_bytes 64MiB: peak RSS "
            << peak_kib / 1024 << " MiB, 600 published (" << sizes.size()
            << " on the topic), 3 FAILED MSG_SIZE_TOO_LARGE\n";
}
