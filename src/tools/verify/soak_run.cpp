#include "soak_run.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <future>
#include <thread>

#include "harness/poll.hpp"
#include "sql_literal.hpp"

namespace outbox::verify {
namespace {

using std::chrono::steady_clock;

harness::PlannerConfigSettings soak_consumer() {
  harness::PlannerConfigSettings settings;
  // Long enough that a busy machine does not evict a live member, short enough that a killed
  // one's partitions move on.
  settings.session_timeout_ms = "6000";
  return settings;
}

double seconds_since(steady_clock::time_point start) {
  return std::chrono::duration<double>(steady_clock::now() - start).count();
}

// A step of the timeline: a fault, or the heal that ends it.
struct Step {
  double at_s;
  size_t fault;
  bool heal;
};

}  // namespace

// Relays as the soak runs them: the shortest lease the relay accepts (so a killed relay's rows
// come back in 10 s), and retries that outlast any outage the schedule injects (nothing may end
// FAILED). On the mock, one produce in flight per connection (it can lose or duplicate
// acknowledged messages with more when it injects errors: DESIGN.md); a real cluster gets the
// relay's own setting, as in production.
harness::RelayConfigSettings soak_relay(const std::string& instance, BrokerKind broker) {
  harness::RelayConfigSettings settings;
  settings.instance_id = instance;
  settings.workers = 2;
  settings.batch_size = 100;
  settings.lease = "10s";
  settings.extra_kafka_properties = "    message.timeout.ms: 5000\n";
  if (broker == BrokerKind::kMock)
    settings.extra_kafka_properties += "    max.in.flight.requests.per.connection: 1\n";
  settings.extra_relay_settings =
      "  poll_interval_max: 200ms\n"
      "  max_attempts: 1000\n"
      "  retry_backoff_initial: 200ms\n"
      "  retry_backoff_max: 2s\n";
  return settings;
}

int64_t now_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

SoakRun::SoakRun(Chain& chain, SoakServer& server, SoakShape shape, std::vector<Fault> schedule)
    : chain_(chain), server_(server), shape_(shape), schedule_(std::move(schedule)) {
  for (int i = 0; i < shape_.relays; ++i)
    relays_.push_back(ProcessSlot{"relay", i, "soak_relay_" + std::to_string(i + 1), {}, {}});
  for (int i = 0; i < shape_.consumers; ++i) {
    consumers_.push_back(
        ProcessSlot{"consumer", i, "soak_consumer_" + std::to_string(i + 1), {}, {}});
  }
  const int64_t per_writer = shape_.events / shape_.writers;
  for (int i = 0; i < shape_.writers; ++i) {
    WriterRun writer;
    writer.account = "soak_writer_" + std::to_string(i + 1);
    writer.first_order_id = 1 + i * per_writer;
    writer.orders = i + 1 == shape_.writers ? shape_.events - i * per_writer : per_writer;
    writers_.push_back(std::move(writer));
  }
}

SoakRun::~SoakRun() = default;

void SoakRun::create_accounts() {
  // One account per process, so KILL CONNECTION can pick the sessions of one process.
  std::string sql;
  const std::string password = sql_literal(server_.endpoint().password);
  auto add = [&](const std::string& account) {
    sql += "CREATE USER IF NOT EXISTS " + sql_literal(account) + "@'127.0.0.1' IDENTIFIED BY " +
           password + ";\nGRANT ALL PRIVILEGES ON `" + chain_.setup().database + "`.* TO " +
           sql_literal(account) + "@'127.0.0.1';\n";
  };
  for (const ProcessSlot& slot : relays_)
    add(slot.account);
  for (const ProcessSlot& slot : consumers_)
    add(slot.account);
  for (const WriterRun& writer : writers_)
    add(writer.account);
  chain_.sql().exec(sql);
}

void SoakRun::start(ProcessSlot& slot) {
  Incarnation incarnation;
  const int number = static_cast<int>(slot.incarnations.size()) + 1;
  incarnation.name =
      slot.role + "-" + std::to_string(slot.index + 1) + "." + std::to_string(number);
  if (slot.role == "relay") {
    incarnation.instance =
        "soak-r" + std::to_string(slot.index + 1) + "-i" + std::to_string(number);
    slot.process = chain_.start_relay(incarnation.name,
                                      soak_relay(incarnation.instance, chain_.broker().kind()), "",
                                      slot.account);
  } else {
    slot.process = chain_.start_planner(incarnation.name, soak_consumer(), "", slot.account);
  }
  incarnation.log_file = slot.process->log_file();
  slot.incarnations.push_back(incarnation);
}

int SoakRun::kill_sessions(const std::string& account) {
  // A process between two sessions (reconnecting after an earlier fault) has none for a moment:
  // wait a little for one, so the fault hits a session rather than nothing.
  harness::Rows sessions;
  harness::eventually(
      [&] {
        sessions = chain_.sql().query(
            "SELECT ID FROM information_schema.PROCESSLIST WHERE USER = " + sql_literal(account));
        return !sessions.empty();
      },
      std::chrono::seconds(2), std::chrono::milliseconds(100));
  int killed = 0;
  for (const auto& row : sessions) {
    try {
      chain_.sql().exec("KILL CONNECTION " + row[0]);
      ++killed;
    } catch (const std::exception&) {  // NOLINT(bugprone-empty-catch): it ended by itself
    }
  }
  return killed;
}

void SoakRun::inject(InjectedFault& injected) {
  const Fault& fault = injected.fault;
  // A broker fault meets the whole cluster: a node still starting after a broker_kill is
  // awaited first (the schedule allows for the restart, a slow machine may take longer).
  if (is_broker_fault(fault.kind) && !node_restarts_.empty()) {
    const auto waited = steady_clock::now();
    finish_node_restarts();
    // The rest of the schedule moves by the wait, so every later fault keeps its duration.
    slip_ += steady_clock::now() - waited;
    spdlog::info(
        "fault #{} waited {:.1f}s for a node's restart; the rest of the schedule is "
        "that much later",
        fault.index, seconds_since(waited));
  }
  injected.at_us = now_us();
  injected.applied = true;
  try {
    switch (fault.kind) {
      case FaultKind::kRelayKill:
      case FaultKind::kConsumerKill: {
        ProcessSlot& slot = fault.kind == FaultKind::kRelayKill
                                ? relays_[static_cast<size_t>(fault.target)]
                                : consumers_[static_cast<size_t>(fault.target)];
        if (!slot.process || !slot.process->process().running()) {
          injected.applied = false;
          injected.outcome = "skipped: " + slot.role + " not running";
          break;
        }
        injected.outcome = "exit " + std::to_string(slot.process->kill_now());
        slot.incarnations.back().killed_by = fault.index;
        slot.process.reset();
        break;
      }
      case FaultKind::kRelayConnectionKill:
      case FaultKind::kConsumerConnectionKill:
      case FaultKind::kWriterConnectionKill: {
        const auto target = static_cast<size_t>(fault.target);
        const std::string& account =
            fault.kind == FaultKind::kRelayConnectionKill      ? relays_[target].account
            : fault.kind == FaultKind::kConsumerConnectionKill ? consumers_[target].account
                                                               : writers_[target].account;
        injected.outcome = "killed " + std::to_string(kill_sessions(account)) + " sessions";
        break;
      }
      case FaultKind::kMariadbRestart: {
        const auto started = steady_clock::now();
        const Status restarted = server_.restart();
        injected.applied = restarted.ok();
        char took[64];
        std::snprintf(took, sizeof(took), "restarted in %.1fs", seconds_since(started));
        injected.outcome = restarted ? took : "failed: " + restarted.error().message;
        break;
      }
      case FaultKind::kBrokerRequestErrors:
        chain_.broker().inject_request_errors(fault.api, fault.error, fault.count);
        injected.outcome =
            "the next " + std::to_string(fault.count) + " " + fault.api + " requests fail";
        break;
      case FaultKind::kBrokerDown:
        chain_.broker().take_off_network(fault.target);
        injected.outcome = "down";
        break;
      case FaultKind::kBrokerKill:
        chain_.broker().kill_node(fault.target);
        killed_nodes_.insert(fault.target);
        injected.outcome = "killed (kill -9)";
        break;
      case FaultKind::kLeaseShortened: {
        chain_.broker().delay_replies(fault.count);
        // Let deliveries start under the delay, then end every live lease: the relays are
        // mid-publish when another one may take their rows.
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        const std::string rows = chain_.sql().scalar(
            "UPDATE outbox_event SET lease_until = CURRENT_TIMESTAMP(6), next_attempt_at = "
            "CURRENT_TIMESTAMP(6) WHERE status = 'PUBLISHING';\nSELECT ROW_COUNT()");
        injected.outcome = "acks delayed, " + rows + " live leases ended";
        break;
      }
    }
  } catch (const std::exception& e) {
    injected.applied = false;
    injected.outcome = std::string("failed: ") + e.what();
  }
  spdlog::info("fault {} -> {}", describe(fault), injected.outcome);
}

void SoakRun::heal(const Fault& fault) {
  try {
    switch (fault.kind) {
      case FaultKind::kRelayKill:
        if (!relays_[static_cast<size_t>(fault.target)].process)
          start(relays_[static_cast<size_t>(fault.target)]);
        break;
      case FaultKind::kConsumerKill:
        if (!consumers_[static_cast<size_t>(fault.target)].process)
          start(consumers_[static_cast<size_t>(fault.target)]);
        break;
      case FaultKind::kBrokerRequestErrors:
        chain_.broker().clear_request_errors(fault.api);
        break;
      case FaultKind::kBrokerDown:
        chain_.broker().put_on_network(fault.target);
        break;
      case FaultKind::kBrokerKill:
        begin_node_restart(fault.target);
        break;
      case FaultKind::kLeaseShortened:
        chain_.broker().delay_replies(0);
        break;
      default:
        return;
    }
  } catch (const std::exception& e) {
    spdlog::warn("heal of fault #{} failed: {}", fault.index, e.what());
    return;
  }
  spdlog::info("fault #{} healed", fault.index);
}

void SoakRun::heal_everything() {
  for (auto* slots : {&relays_, &consumers_}) {
    for (ProcessSlot& slot : *slots) {
      if (!slot.process) start(slot);
    }
  }
  ChainBroker& broker = chain_.broker();
  broker.put_on_network(0);
  broker.delay_replies(0);
  if (broker.kind() == BrokerKind::kMock) {
    for (const char* api : {"Produce", "OffsetCommit", "Fetch"})
      broker.clear_request_errors(api);
  }
  finish_node_restarts();
  // A restart that failed gets one more try.
  for (const int node : std::set<int>(killed_nodes_)) {
    begin_node_restart(node);
    finish_node_restarts();
  }
}

void SoakRun::begin_node_restart(int node) {
  // In the background: a JVM takes seconds to serve again, and the schedule's other faults
  // (a relay's restart) keep their times meanwhile.
  ChainBroker& broker = chain_.broker();
  node_restarts_.push_back(
      NodeRestart{node, std::async(std::launch::async, [&broker, node] {
                    const auto started = steady_clock::now();
                    try {
                      broker.start_node(node);
                    } catch (const std::exception& e) {
                      return std::string(e.what());
                    }
                    spdlog::info(
                        "Kafka node {} serves clients again, {:.1f}s after its restart "
                        "began",
                        node, seconds_since(started));
                    return std::string();
                  })});
}

void SoakRun::finish_node_restarts() {
  for (NodeRestart& restart : node_restarts_) {
    const std::string failure = restart.failure.get();
    if (failure.empty()) {
      killed_nodes_.erase(restart.node);
    } else {
      heal_problems_ +=
          "Kafka node " + std::to_string(restart.node) + " did not restart: " + failure + "; ";
    }
  }
  node_restarts_.clear();
}

std::string SoakRun::progress() const {
  try {
    const harness::Rows rows = chain_.sql().query(
        "SELECT COUNT(*), COALESCE(SUM(status = 'PUBLISHED'), 0), (SELECT COUNT(*) FROM "
        "notification_job) FROM outbox_event");
    return "written " + rows[0][0] + ", published " + rows[0][1] + ", notification jobs " +
           rows[0][2];
  } catch (const std::exception&) {
    return "database not answering";
  }
}

bool SoakRun::wait_until(const std::string& what, const std::function<bool()>& done,
                         double limit_s) {
  const auto started = steady_clock::now();
  auto next_report = started + std::chrono::seconds(10);
  return harness::eventually(
      [&] {
        bool finished = false;
        try {
          finished = done();
        } catch (const std::exception&) {  // NOLINT(bugprone-empty-catch): not yet answering
        }
        if (!finished && steady_clock::now() >= next_report) {
          spdlog::info("waiting for {}: {}", what, progress());
          next_report += std::chrono::seconds(10);
        }
        return finished;
      },
      std::chrono::milliseconds(static_cast<int64_t>(limit_s * 1000)),
      std::chrono::milliseconds(250));
}

std::string SoakRun::run() {
  create_accounts();
  for (auto* slots : {&relays_, &consumers_}) {
    for (ProcessSlot& slot : *slots)
      start(slot);
  }
  // Writers spread the orders over the whole schedule, so every fault meets a flowing chain.
  const double span_s = std::max(10.0, schedule_end_s(schedule_) - 2.0);
  for (size_t i = 0; i < writers_.size(); ++i) {
    WriterRun& writer = writers_[i];
    WriterOrders orders;
    orders.first_order_id = writer.first_order_id;
    orders.orders = writer.orders;
    orders.rate = static_cast<double>(writer.orders) / span_s;
    orders.account = writer.account;
    writer.process = chain_.start_writer("writer-" + std::to_string(i + 1), orders);
  }
  const auto started = steady_clock::now();

  std::vector<Step> steps;
  for (size_t i = 0; i < schedule_.size(); ++i) {
    injected_.push_back(InjectedFault{schedule_[i], -1, false, ""});
    steps.push_back(Step{schedule_[i].at_s, i, false});
    if (schedule_[i].duration_s > 0)
      steps.push_back(Step{schedule_[i].at_s + schedule_[i].duration_s, i, true});
  }
  std::stable_sort(steps.begin(), steps.end(),
                   [](const Step& a, const Step& b) { return a.at_s < b.at_s; });
  auto next_report = started + std::chrono::seconds(10);
  for (const Step& step : steps) {
    const auto due = started + slip_ +
                     std::chrono::duration_cast<steady_clock::duration>(
                         std::chrono::duration<double>(step.at_s));
    while (steady_clock::now() < due) {
      std::this_thread::sleep_for(std::min<steady_clock::duration>(due - steady_clock::now(),
                                                                   std::chrono::milliseconds(200)));
      if (steady_clock::now() >= next_report) {
        spdlog::info("t={:.0f}s {}", seconds_since(started), progress());
        next_report += std::chrono::seconds(10);
      }
    }
    if (step.heal) {
      heal(schedule_[step.fault]);
    } else {
      inject(injected_[step.fault]);
    }
  }
  spdlog::info("schedule done after {:.0f}s; healing everything", seconds_since(started));
  heal_everything();

  std::string problem = heal_problems_;
  for (WriterRun& writer : writers_) {
    // In steps, with a progress line each, so a writer that does not finish shows what the
    // chain was doing meanwhile.
    std::optional<int> status;
    for (int step = 0; step < 60 && !status; ++step) {
      status = writer.process->wait_exit(std::chrono::seconds(10));
      if (!status) spdlog::info("waiting for {} to exit: {}", writer.account, progress());
    }
    if (status != 0) {
      problem += writer.account + " did not accept all its orders (exit " +
                 (status ? std::to_string(*status) : std::string("-")) + "); ";
    }
  }
  const harness::MariadbCli& sql = chain_.sql();
  if (!wait_until(
          "every event PUBLISHED",
          [&] {
            return sql.count(
                       "SELECT COUNT(*) FROM outbox_event WHERE status <> "
                       "'PUBLISHED'") == 0;
          },
          300)) {
    problem += "not every event was PUBLISHED in time; ";
  }
  if (!wait_until(
          "one notification job per event",
          [&] {
            return sql.count("SELECT COUNT(*) FROM notification_job") >=
                   sql.count("SELECT COUNT(*) FROM outbox_event");
          },
          300)) {
    problem += "not every event was consumed in time; ";
  }
  if (!wait_until(
          "the consumer group at the end of the topic", [&] { return chain_.group_caught_up(); },
          120)) {
    problem += "the consumer group did not commit its offsets to the end; ";
  }
  for (auto* slots : {&relays_, &consumers_}) {
    for (ProcessSlot& slot : *slots) {
      if (!slot.process) continue;
      const std::optional<int> status = slot.process->stop(std::chrono::seconds(60));
      if (status != 0) {
        problem += slot.incarnations.back().name + " did not drain (exit " +
                   (status ? std::to_string(*status) : std::string("-")) + "); ";
      }
      slot.process.reset();
    }
  }
  seconds_ = seconds_since(started);
  return problem;
}

}  // namespace outbox::verify
