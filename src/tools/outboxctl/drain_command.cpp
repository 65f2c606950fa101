// outboxctl drain: the seed's safe relay rollback, explained and checked. A rollback stops new
// claims (stop every relay) and waits for the leases in force to end; it never deletes or
// changes a row. This command only reads: it reports which relay instances still hold live
// leases and, with --wait, polls until none does.
#include <chrono>
#include <iostream>
#include <thread>

#include "config/duration.hpp"
#include "drain_command.hpp"
#include "row_values.hpp"

namespace outbox::ctl {
namespace {

constexpr std::chrono::seconds kPollEvery{1};
constexpr std::chrono::minutes kDefaultTimeout{5};

constexpr const char* kProcedure =
    "Safe relay rollback: stop claims, let leases end, never delete unpublished rows.\n"
    "  1. Stop every relay (systemctl stop outbox-relay, SIGTERM, or remove the sidecar). Each\n"
    "     stops claiming, waits up to relay.drain_timeout for in-flight deliveries, marks what\n"
    "     the broker confirmed and puts the rest back to PENDING.\n"
    "  2. Wait until no PUBLISHING row holds a live lease: outboxctl drain --wait. A relay that\n"
    "     was killed leaves leases that end by themselves at lease_until (relay.lease).\n"
    "  3. Start the version you roll back to. It takes every unpublished row as it is (PENDING,\n"
    "     RETRY, BLOCKED, FAILED, expired PUBLISHING); keep outbox_event and consumed_event.\n"
    "\n";

// "1 event", "3 events".
std::string count_of(int64_t n, const std::string& noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

struct LeaseState {
  int64_t live = 0;
  int64_t expired = 0;
  Value holders = Value::list();
  std::string holder_names;  // "relay-a (3 events, until ...), relay-b (...)"
};

// The database's view of leases now. Instances are the lease_owner prefix before the first
// '/' ("<instance>/w<worker>/c<claim>").
LeaseState read_leases(MysqlSession& session, const std::string& table) {
  TransactionScope read(session);
  LeaseState state;
  std::unique_ptr<sql::ResultSet> rows(
      session
          .prepare("SELECT SUBSTRING_INDEX(lease_owner, '/', 1), COUNT(*), " +
                   iso_time("MAX(lease_until)") + " FROM " + table +
                   " WHERE status = 'PUBLISHING' AND lease_until > "
                   "CURRENT_TIMESTAMP(6) GROUP BY 1 ORDER BY 1")
          .executeQuery());
  while (rows->next()) {
    const std::string instance = rows->getString(1);
    const int64_t events = rows->getInt64(2);
    const std::string until = rows->getString(3);
    state.live += events;
    state.holders.add(
        Value::object().set("instance", instance).set("events", events).set("lease_until", until));
    if (!state.holder_names.empty()) state.holder_names += ", ";
    state.holder_names += instance;
    state.holder_names += " (";
    state.holder_names += count_of(events, "event");
    state.holder_names += ", until ";
    state.holder_names += until;
    state.holder_names += ')';
  }
  std::unique_ptr<sql::ResultSet> expired(
      session
          .prepare("SELECT COUNT(*) FROM " + table +
                   " WHERE status = 'PUBLISHING' AND lease_until <= CURRENT_TIMESTAMP(6)")
          .executeQuery());
  expired->next();
  state.expired = expired->getInt64(1);
  return state;
}

}  // namespace

int drain(CommandContext& context) {
  bool wait = false;
  Micros timeout = kDefaultTimeout;
  for (size_t i = 0; i < context.args.size(); ++i) {
    if (context.args[i] == "--wait") {
      wait = true;
    } else if (context.args[i] == "--timeout" && i + 1 < context.args.size()) {
      const std::optional<Micros> parsed = parse_duration(context.args[++i]);
      if (!parsed) {
        std::cerr << "outboxctl drain: --timeout must be a duration like 30s or 5m, got \""
                  << context.args[i] << "\"\n";
        return 64;
      }
      timeout = *parsed;
    } else {
      return 64;
    }
  }
  if (!context.json) std::cout << kProcedure;

  const auto deadline = std::chrono::steady_clock::now() + timeout;
  LeaseState state = read_leases(context.session, context.outbox_table);
  int64_t reported = -1;
  while (wait && state.live > 0 && std::chrono::steady_clock::now() < deadline) {
    if (!context.json && state.live != reported) {
      std::cout << "waiting: " << count_of(state.live, "live lease") << ", held by "
                << state.holder_names << std::endl;
      reported = state.live;
    }
    std::this_thread::sleep_for(kPollEvery);
    state = read_leases(context.session, context.outbox_table);
  }

  Value answer = Value::object()
                     .set("drained", state.live == 0)
                     .set("live_leases", state.live)
                     .set("expired_leases", state.expired)
                     .set("holders", state.holders);
  if (state.live == 0) {
    print_answer(context, answer);
    return 0;
  }
  if (!context.json) print_answer(context, answer);
  const std::string why = wait ? "timed out after " + format_duration(timeout) : "not drained";
  return refuse(context, std::move(answer),
                "outboxctl drain: " + why + ": " + count_of(state.live, "live lease") +
                    ", held by " + state.holder_names);
}

}  // namespace outbox::ctl
