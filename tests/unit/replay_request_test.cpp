// outboxctl replay's pure parts: its arguments, and the order it replays a chunk in.
#include <catch2/catch.hpp>

#include "replay_reader.hpp"
#include "replay_request.hpp"

using outbox::ctl::parse_replay_args;
using outbox::ctl::ReplayRow;

namespace {

ReplayRow row(const std::string& id, const std::string& aggregate, int64_t version) {
  ReplayRow out;
  out.event.event_id = id;
  out.event.aggregate_type = "ORDER";
  out.event.aggregate_id = aggregate;
  out.event.event_version = version;
  return out;
}

std::vector<std::string> ids(const std::vector<ReplayRow>& rows) {
  std::vector<std::string> out;
  for (const ReplayRow& r : rows)
    out.push_back(r.event.event_id);
  return out;
}

}  // namespace

TEST_CASE("replay takes a window a filter and a pace", "[outboxctl][replay]") {
  const auto parsed =
      parse_replay_args({"--since", "2h", "--until", "2026-12-06T10:00:00Z", "--topic",
                         "outbox.ORDER", "--rate", "0", "--batch-size", "50", "--dry-run"});
  REQUIRE(parsed.request);
  CHECK(parsed.request->since_text == "2h");
  CHECK(parsed.request->until_text == "2026-12-06T10:00:00Z");
  CHECK(parsed.request->topic == "outbox.ORDER");
  CHECK_FALSE(parsed.request->aggregate_type);
  CHECK(parsed.request->rate == 0);
  CHECK(parsed.request->batch_size == 50);
  CHECK(parsed.request->dry_run);

  const auto defaults = parse_replay_args({"--since", "2026-12-06"});
  REQUIRE(defaults.request);
  CHECK(defaults.request->rate == outbox::ctl::kDefaultReplayRate);
  CHECK(defaults.request->batch_size == outbox::ctl::kDefaultReplayBatch);
  CHECK_FALSE(defaults.request->until_text);
  CHECK_FALSE(defaults.request->dry_run);
}

TEST_CASE("replay refuses arguments it cannot honour and says which", "[outboxctl][replay]") {
  const auto problem = [](std::vector<std::string> args) {
    const auto parsed = parse_replay_args(args);
    CHECK_FALSE(parsed.request);
    return parsed.problem;
  };
  CHECK(problem({}) == "--since is required: where the window starts");
  CHECK(problem({"--since", "1h", "--topic", "a", "--aggregate-type", "b"}) ==
        "name one --topic or one --aggregate-type, not both");
  CHECK(problem({"--since", "1h", "--rate", "-5"}) ==
        "--rate must be events a second (0: no limit), got \"-5\"");
  CHECK(problem({"--since", "1h", "--batch-size", "0"}) ==
        "--batch-size must be between 1 and 10000, got \"0\"");
  CHECK(problem({"--since"}) == "--since needs a value");
  CHECK(problem({"--since", "1h", "--sinse", "2h"}) == "unknown option --sinse");
  CHECK(problem({"--since", "1h", "ORDER"}) == "unexpected argument \"ORDER\"");
}

TEST_CASE("a replayed chunk follows each aggregate's versions in the places its rows held",
          "[outboxctl][replay]") {
  // Created in this order; aggregate a's versions were stamped out of version order.
  std::vector<ReplayRow> rows{row("a3", "a", 3), row("b1", "b", 1), row("a1", "a", 1),
                              row("c1", "c", 1), row("a2", "a", 2), row("b2", "b", 2)};
  outbox::ctl::order_versions_within_aggregates(rows);
  CHECK(ids(rows) == std::vector<std::string>{"a1", "b1", "a2", "c1", "a3", "b2"});

  std::vector<ReplayRow> ordered{row("x1", "x", 1), row("y1", "y", 1), row("x2", "x", 2)};
  outbox::ctl::order_versions_within_aggregates(ordered);
  CHECK(ids(ordered) == std::vector<std::string>{"x1", "y1", "x2"});

  // The same aggregate id under another type is another aggregate.
  std::vector<ReplayRow> types{row("o2", "1", 2), row("p1", "1", 1)};
  types[1].event.aggregate_type = "PAYMENT";
  outbox::ctl::order_versions_within_aggregates(types);
  CHECK(ids(types) == std::vector<std::string>{"o2", "p1"});
}
