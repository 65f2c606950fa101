#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "chain.hpp"
#include "injection_report.hpp"

namespace outbox::verify {

struct WindowsOptions {
  std::set<int> windows{1, 2, 3, 4, 5, 6, 7};
  // Self-test of the verifier: run window N without forcing its fault. Its evidence must then
  // fail (a verifier whose duplicate path never ran must not pass).
  std::optional<int> without_fault;
};

// A copy of an event the consumer group received again because its offset was not committed
// when the consumer died (the broker's committed offset, read by a client outside the group,
// stood at or before the copy). Counted on top of the copies kcat reads from the topic.
struct UncommittedRedelivery {
  std::string event_id;
  int partition = -1;
  long long offset = -1;
};

// The seven windows of issue 4, each forced for real against the chain, one after another:
// between windows every committed event is published and consumed, so each window's fault
// meets only its own order.
class SevenWindows {
 public:
  SevenWindows(Chain& chain, WindowsOptions options);
  ~SevenWindows();
  SevenWindows(const SevenWindows&) = delete;
  SevenWindows& operator=(const SevenWindows&) = delete;

  // Runs the selected windows; an exception inside one is recorded as its failure.
  std::vector<InjectionReport> run();

  // Drains every process still running (SIGTERM); false (with the reason) when one did not
  // exit 0.
  bool stop_all(std::string& problem);

  const std::vector<UncommittedRedelivery>& redeliveries() const { return redeliveries_; }
  // Log files of every notification-planner the run started (the report counts their
  // handle attempts).
  const std::vector<std::string>& planner_logs() const { return planner_logs_; }
  // Whether each queried intermediate state answered by its stable id (for the invariant
  // everyNonTerminalStateIsQueryable): "window 4 PUBLISHING by event_id" -> true.
  const std::map<std::string, bool>& state_lookups() const { return state_lookups_; }

 private:
  void window1(InjectionReport& report);
  void window2(InjectionReport& report);
  void window3(InjectionReport& report);
  void window4(InjectionReport& report);
  void window5(InjectionReport& report);
  void window6(InjectionReport& report);
  void window7(InjectionReport& report);
  // Window 7's cases: install the fault, commit an order, watch it fail, remove the fault.
  struct ConsumerFault {
    std::string label;        // "7a"
    std::string what;         // in words
    std::string install_sql;  // may use @EVENT_ID@ (the order's event id)
    std::string remove_sql;
    bool needs_event_id_first;  // the fault names the event: commit it before a relay runs
    int error_code;             // what the consumed_event insert must fail with
  };
  void consumer_fault_case(InjectionReport& report, const ConsumerFault& fault, int64_t order_id);

  bool fault_forced(int window) const { return options_.without_fault != window; }

  // The running relay / planner, started (plain) when none runs.
  harness::DaemonProcess& relay();
  harness::DaemonProcess& planner();
  std::unique_ptr<harness::DaemonProcess> start_relay(const std::string& label,
                                                      harness::RelayConfigSettings settings,
                                                      const std::string& failpoints = "");
  std::unique_ptr<harness::DaemonProcess> start_planner(const std::string& label,
                                                        const std::string& failpoints = "");
  // SIGTERM; records in `report` whether it drained (exit 0).
  void drain(std::unique_ptr<harness::DaemonProcess>& process, InjectionReport& report);

  // Runs one writer process to its end; returns its log.
  std::string run_writer(const std::string& label, const WriterOrders& orders,
                         const std::string& failpoints = "");
  std::unique_ptr<harness::ChildProcess> start_writer(const std::string& label,
                                                      const WriterOrders& orders,
                                                      const std::string& failpoints);

  // Waits until every committed event is PUBLISHED, consumed, and the group's offsets are at
  // the end of the topic. Throws on timeout.
  void settle();
  // Waits for `condition`; throws naming `what` when it does not hold in time.
  void await(const std::string& what, const std::function<bool()>& condition,
             std::chrono::milliseconds limit = std::chrono::seconds(90));

  // The committed acceptance event of order_id ("" when none).
  std::string committed_event(int64_t order_id) const;
  // `outboxctl --json ARGS` parsed; records in state_lookups_ whether it answered.
  YAML::Node lookup(const std::string& state, const std::vector<std::string>& args);
  // Adds an order to the report's traced orders; returns its index in report.orders.
  size_t trace(InjectionReport& report, const std::string& label, int64_t order_id);

  Chain& chain_;
  WindowsOptions options_;
  std::unique_ptr<harness::DaemonProcess> relay_;
  std::unique_ptr<harness::DaemonProcess> planner_;
  int processes_started_ = 0;
  std::vector<UncommittedRedelivery> redeliveries_;
  std::vector<std::string> planner_logs_;
  std::map<std::string, bool> state_lookups_;
};

// Relays of the windows: one worker, short polls and reclaims, so a window's event is picked up
// at once.
harness::RelayConfigSettings window_relay(const std::string& instance);

// Thrown when a window cannot go on (a wait timed out, a process misbehaved).
class WindowAborted : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace outbox::verify
