#include "seven_windows.hpp"

#include <spdlog/spdlog.h>

#include "harness/poll.hpp"
#include "sql_literal.hpp"

namespace outbox::verify {
harness::RelayConfigSettings window_relay(const std::string& instance) {
  harness::RelayConfigSettings settings;
  settings.instance_id = instance;
  settings.workers = 1;
  settings.batch_size = 50;
  settings.extra_relay_settings = "  poll_interval_max: 100ms\n  reclaim_interval: 200ms\n";
  return settings;
}

SevenWindows::SevenWindows(Chain& chain, WindowsOptions options)
    : chain_(chain), options_(std::move(options)) {}

SevenWindows::~SevenWindows() = default;

std::vector<InjectionReport> SevenWindows::run() {
  using Step = void (SevenWindows::*)(InjectionReport&);
  struct Window {
    int number;
    const char* point;
    const char* expected;
    Step step;
  };
  static const Window kWindows[] = {
      {1, "BEFORE_ORDER_TRANSACTION_COMMIT", "ORDER_AND_EVENT_BOTH_ABSENT_OR_UNKNOWN_RECONCILED",
       &SevenWindows::window1},
      {2, "COMMIT_SUCCEEDS_BUT_CLIENT_RECEIVES_EXCEPTION",
       "UNKNOWN_THEN_RECONCILED_BY_REQUEST_ID_NO_BLIND_REPLAY", &SevenWindows::window2},
      {3, "AFTER_COMMIT_BEFORE_RELAY_CLAIM", "EVENT_REMAINS_DISCOVERABLE", &SevenWindows::window3},
      {4, "AFTER_BROKER_CONFIRM_BEFORE_MARK_PUBLISHED",
       "MESSAGE_MAY_REPEAT_NO_DUPLICATE_LOCAL_EFFECT", &SevenWindows::window4},
      {5, "DURING_CONCURRENT_CLAIM", "LEASE_OWNERSHIP_TRACEABLE_DUPLICATE_TOLERATED",
       &SevenWindows::window5},
      {6, "AFTER_CONSUMER_COMMIT_BEFORE_MESSAGE_ACK", "REDELIVERY_DEDUPLICATED",
       &SevenWindows::window6},
      {7, "NON_TARGET_INTEGRITY_OR_DATA_ERROR_WHILE_CLAIMING",
       "FAILED_NOT_CLASSIFIED_AS_ALREADY_CONSUMED", &SevenWindows::window7},
  };
  std::vector<InjectionReport> reports;
  for (const Window& window : kWindows) {
    if (options_.windows.count(window.number) == 0) continue;
    InjectionReport report;
    report.window = window.number;
    report.point = window.point;
    report.expected = window.expected;
    spdlog::info("window {}: {}", window.number, window.point);
    try {
      (void)relay();
      (void)planner();
      settle();
      (this->*window.step)(report);
      settle();
    } catch (const std::exception& e) {
      report.expect(false, std::string("aborted: ") + e.what());
    }
    if (!fault_forced(window.number)) {
      report.forced_by = "NOT FORCED (--without-fault " + std::to_string(window.number) +
                         ", a self-test of the verifier): " + report.forced_by;
    }
    spdlog::info("window {}: {}", window.number,
                 report.passed() ? "PASS" : "FAIL: " + report.failures.front());
    reports.push_back(std::move(report));
  }
  return reports;
}

bool SevenWindows::stop_all(std::string& problem) {
  for (auto* process : {&relay_, &planner_}) {
    if (!*process) continue;
    const std::optional<int> status = (*process)->stop(std::chrono::seconds(60));
    if (status != 0) {
      problem += (*process)->name() + " did not drain (exit " +
                 (status ? std::to_string(*status) : std::string("-")) + "); ";
    }
    process->reset();
  }
  return problem.empty();
}

harness::DaemonProcess& SevenWindows::relay() {
  if (!relay_) relay_ = start_relay("relay", window_relay("verify-relay"));
  return *relay_;
}

harness::DaemonProcess& SevenWindows::planner() {
  if (!planner_) planner_ = start_planner("planner");
  return *planner_;
}

std::unique_ptr<harness::DaemonProcess> SevenWindows::start_relay(
    const std::string& label, harness::RelayConfigSettings settings,
    const std::string& failpoints) {
  const std::string name = std::to_string(++processes_started_) + "-" + label;
  // Each process its own lease-token prefix, so every claim names the process that made it.
  settings.instance_id += "-" + std::to_string(processes_started_);
  auto process = chain_.start_relay(name, settings, failpoints);
  await(name + " running", [&] { return process->logged("relay running"); });
  return process;
}

std::unique_ptr<harness::DaemonProcess> SevenWindows::start_planner(const std::string& label,
                                                                    const std::string& failpoints) {
  const std::string name = std::to_string(++processes_started_) + "-" + label;
  auto process = chain_.start_planner(name, harness::PlannerConfigSettings{}, failpoints);
  planner_logs_.push_back(process->log_file());
  // A member of the group with its partitions: what it receives from now on is its own.
  await(name + " assigned partitions", [&] { return process->logged("assigned "); });
  return process;
}

void SevenWindows::drain(std::unique_ptr<harness::DaemonProcess>& process,
                         InjectionReport& report) {
  if (!process) return;
  const std::optional<int> status = process->stop(std::chrono::seconds(60));
  report.expect(status == 0, process->name() + " drains on SIGTERM (exit 0)");
  process.reset();
}

std::unique_ptr<harness::ChildProcess> SevenWindows::start_writer(const std::string& label,
                                                                  const WriterOrders& orders,
                                                                  const std::string& failpoints) {
  const std::string name = std::to_string(++processes_started_) + "-" + label;
  auto writer = chain_.start_writer(name, orders, failpoints);
  return writer;
}

std::string SevenWindows::run_writer(const std::string& label, const WriterOrders& orders,
                                     const std::string& failpoints) {
  auto writer = start_writer(label, orders, failpoints);
  const std::optional<int> status = writer->wait_exit(std::chrono::seconds(120));
  if (!status) throw WindowAborted("the writer " + label + " did not finish");
  return writer->output();
}

void SevenWindows::settle() {
  const harness::MariadbCli& sql = chain_.sql();
  await("every committed event PUBLISHED", [&] {
    return sql.count("SELECT COUNT(*) FROM outbox_event WHERE status <> 'PUBLISHED'") == 0;
  });
  await("every published event consumed", [&] {
    return sql.count(
               "SELECT COUNT(*) FROM outbox_event e LEFT JOIN consumed_event c ON "
               "c.event_id = e.event_id AND c.consumer_name = " +
               sql_literal(kConsumerName) + " WHERE c.id IS NULL") == 0;
  });
  await("the consumer group's offsets at the end of the topic",
        [&] { return chain_.group_caught_up(); });
}

void SevenWindows::await(const std::string& what, const std::function<bool()>& condition,
                         std::chrono::milliseconds limit) {
  if (!harness::eventually(condition, limit, std::chrono::milliseconds(100))) {
    throw WindowAborted("timed out waiting for " + what);
  }
}

std::string SevenWindows::committed_event(int64_t order_id) const {
  const harness::Rows rows = chain_.sql().query(
      "SELECT acceptance_event_id FROM orders WHERE tenant_id = " + std::to_string(kTenant) +
      " AND request_id = " + sql_literal(request_id(order_id)));
  return rows.size() == 1 ? rows[0][0] : "";
}

YAML::Node SevenWindows::lookup(const std::string& state, const std::vector<std::string>& args) {
  const harness::CommandResult result = chain_.outboxctl(args);
  YAML::Node answer;
  try {
    answer = YAML::Load(result.out);  // JSON is YAML
  } catch (const YAML::Exception&) {
    answer = YAML::Node();
  }
  const bool answered = answer.IsMap();
  state_lookups_[state] =
      state_lookups_.count(state) == 0 ? answered : state_lookups_[state] && answered;
  if (!answered) {
    YAML::Node failed;
    failed["exit"] = result.status;
    failed["output"] = result.out + result.err;
    return failed;
  }
  return answer;
}

size_t SevenWindows::trace(InjectionReport& report, const std::string& label, int64_t order_id) {
  report.orders.push_back(TracedOrder{label, report.window, request_id(order_id), order_id, ""});
  return report.orders.size() - 1;
}

}  // namespace outbox::verify
