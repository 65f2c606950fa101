// A drain ends by relay.drain_timeout (the purge comes a short grace before it, for the releases)
// whatever the workers are doing: one still handing a batch to a full producer queue, or one stuck
// inside a MySQL statement whose answer never comes. Nothing is lost either way: the rows are
// released, or stay leased until their lease ends, and are published again.
#include <signal.h>
#include <catch2/catch.hpp>

#include <chrono>
#include <string>

#include "child_process.hpp"
#include "poll.hpp"
#include "relay_process.hpp"
#include "tcp_proxy.hpp"
#include "test_database.hpp"
#include "test_kafka.hpp"

using namespace std::chrono_literals;
using outbox::test::eventually;
using outbox::test::RelayProcess;
using outbox::test::RelayTestConfig;
using outbox::test::TestDatabase;

TEST_CASE("a drain does not wait for a worker still sending into a full producer queue",
          "[faults][drain]") {
  TestDatabase db;
  outbox::test::TestBroker broker(3, 8, {"outbox.order"});
  RelayTestConfig settings;
  settings.workers = 1;
  // The purge comes a quarter of this before the deadline (relay_app.cpp abandon_grace): 2 s
  // left the release of 200 rows 500 ms, which an ASan build on a loaded machine overran once
  // (the worker was still inside its release statement, the rows stayed leased). 8 s still
  // exits far inside the 60 s delivery timeout this test is about.
  settings.drain_timeout = "8s";
  // Room for 10 messages, answers after a minute: the batch of 200 waits in send() for queue
  // room, which the lease (150 s) would allow for 88 s.
  settings.lease = "150s";
  settings.extra_kafka_properties =
      "    message.timeout.ms: 60000\n"
      "    queue.buffering.max.messages: 10\n";
  RelayProcess relay(db, broker.bootstrap(), settings);
  REQUIRE(eventually([&] { return outbox::test::logged(relay, "relay running"); }));
  // One event published before the broker slows down: the relay then knows the topic, has its
  // producer id and leader connections, and has seen a delivery. CI once slowed the broker
  // right after "relay running" under ThreadSanitizer and the 200 rows were never claimed at
  // once (the relay's log was not kept); whatever the start-up still had under way then, the
  // wait below is about the full queue only.
  db.exec(
      "INSERT INTO outbox_event (event_id, aggregate_type, aggregate_id, event_type, "
      "event_version, payload, status, created_at) VALUES ('warm-up', 'order', 'warm-up', "
      "'ORDER_ACCEPTED', 1, JSON_OBJECT('warm', 1), 'PENDING', CURRENT_TIMESTAMP(6))");
  if (!eventually([&] { return db.count("event_id = 'warm-up' AND status = 'PUBLISHED'") == 1; }))
    FAIL("the warm-up event was not published; relay log:\n" << relay.log());
  broker.command("rtt all 60000");
  db.insert_events(200, "sending", "order", 200);  // one event per aggregate: none parked
  if (!eventually([&] { return db.count("status = 'PUBLISHING'") == 200; })) {
    FAIL(db.count("status = 'PUBLISHING'") << " of 200 rows PUBLISHING; relay log:\n"
                                           << relay.log());
  }

  relay.process().signal(SIGTERM);
  // Before: the purge at the deadline made room in the queue, send() went on handing the
  // batch over, and the exit waited for those messages' delivery timeout (over a minute).
  const auto status = relay.process().wait_exit(20s);
  INFO(relay.log());
  REQUIRE(status.has_value());
  CHECK(*status == 0);
  CHECK(outbox::test::logged(relay, "drain deadline reached"));
  CHECK(outbox::test::logged(relay, "not enqueued: the drain deadline passed"));
  CHECK(db.count("status = 'PENDING' AND lease_owner IS NULL") == 200);
  CHECK(db.count("status = 'PUBLISHED'") == 1);  // the warm-up

  broker.command("rtt all 0");
  RelayProcess after(db, broker.bootstrap(), RelayTestConfig{});
  REQUIRE(eventually([&] { return db.count("status = 'PUBLISHED'") == 201; }));
  outbox::test::stop_gracefully(after);
  CHECK(outbox::test::deliveries_by_event(broker.bootstrap(), "outbox.order").size() == 201);
}

TEST_CASE("a drain does not wait for a worker stuck inside a MySQL statement", "[faults][drain]") {
  TestDatabase db;
  outbox::test::TestBroker broker(3, 8, {"outbox.order"});
  // The relay reaches MySQL through a proxy that will stop passing the server's answers on.
  outbox::test::TcpProxy mysql(db.endpoint().host, db.endpoint().port);
  RelayTestConfig settings;
  settings.workers = 1;
  // The purge comes a quarter of this before the deadline (relay_app.cpp abandon_grace): 2 s
  // left the release of 200 rows 500 ms, which an ASan build on a loaded machine overran once
  // (the worker was still inside its release statement, the rows stayed leased). 8 s still
  // exits far inside the 60 s delivery timeout this test is about.
  settings.drain_timeout = "8s";
  settings.lease = "10s";
  settings.extra_kafka_properties = "    message.timeout.ms: 3000\n";
  // stall_timeout above the read_timeout below.
  settings.extra_metrics_settings = "  stall_timeout: 2m\n";
  outbox::test::TempDir dir;
  std::string yaml = outbox::harness::relay_config_yaml(
      outbox::test::mysql_section_yaml(db, mysql.port()) + "  read_timeout: 60s\n",
      broker.bootstrap(), settings);
  // The backlog monitor asks once, at start, and without outbox_pause the pause watcher looks
  // for it once a minute (pause_watcher.cpp): later statements are the worker's. (With the
  // table, the watcher's read every second could be the one whose answer is dropped, and the
  // worker never stuck: a TSan run saw that.)
  db.exec("DROP TABLE outbox_pause");
  const std::string every_second = "backlog_interval: 1s";
  yaml.replace(yaml.find(every_second), every_second.size(), "backlog_interval: 1h");
  const std::string config = dir.write("relay.yaml", yaml);
  outbox::test::ChildProcess relay({outbox::test::relay_binary(), "--config", config},
                                   dir.file("relay.log"));
  db.insert_events(20, "before");
  if (!eventually([&] { return db.count("status = 'PUBLISHED'") == 20; }))
    FAIL("the first 20 were not published; the relay's log:\n" << relay.output());

  // No broker, no claims: the new rows wait until the answers from MySQL are dropped. Then
  // the broker is back, and the worker's claim reaches the server, locks the rows and never
  // hears back.
  broker.command("down all");
  REQUIRE(eventually([&] {
    return relay.output().find("not claiming events until a broker answers") != std::string::npos;
  }));
  db.insert_events(20, "stuck");
  mysql.drop_replies();
  broker.command("up all");
  // The worker is stuck once an answer of the server was dropped: a statement sent after the
  // drop began, or one sent just before it whose answer came after. The second happened in an
  // ASan run: the relay resumed claims 60 ms after its first failed probe, its claim went out
  // before the drop (no request passed while dropping) and its answer was the one dropped; a
  // wait for a request sent while dropping then failed, as the stuck worker sent no other.
  if (!eventually([&] { return mysql.replies_lost() > 0; }))
    FAIL(
        "no answer of MySQL was dropped after the broker was back (the worker never reached "
        "MySQL); the relay's log:\n"
        << relay.output());

  relay.signal(SIGTERM);
  // Before: the exit waited for the claim's read_timeout (60 s).
  const auto status = relay.wait_exit(20s);
  INFO(relay.output());
  REQUIRE(status.has_value());
  CHECK(*status == 0);
  CHECK(relay.output().find("workers still busy") != std::string::npos);

  // The claim never committed: its rows are PENDING again once the server saw the connection
  // go, and a relay publishes them.
  RelayProcess after(db, broker.bootstrap(), RelayTestConfig{});
  REQUIRE(eventually([&] { return db.count("status = 'PUBLISHED'") == 40; }, 60s));
  outbox::test::stop_gracefully(after);
  CHECK(outbox::test::deliveries_by_event(broker.bootstrap(), "outbox.order").size() == 40);
}
