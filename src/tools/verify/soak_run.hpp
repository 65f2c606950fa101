#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "chain.hpp"
#include "duplicate_attribution.hpp"
#include "fault_schedule.hpp"
#include "harness/daemon_process.hpp"
#include "soak_server.hpp"

namespace outbox::verify {

// Relays as the soak (and outbox-verify ordering) runs them: the shortest lease the relay
// accepts, retries that outlast any injected outage, and on the mock one produce in flight
// per connection (soak_run.cpp says why).
harness::RelayConfigSettings soak_relay(const std::string& instance, BrokerKind broker);

struct SoakShape {
  int64_t events = 50000;
  int relays = 3;
  int consumers = 2;
  int writers = 2;
};

// One run of a relay or consumer process in its slot: the slot's process is killed and
// restarted by faults, each start a new incarnation with its own log (and, for a relay, its
// own lease-token prefix, so every claim names the incarnation that made it).
struct Incarnation {
  std::string name;  // "relay-2.3"
  std::string log_file;
  std::string instance;  // relay: lease-token prefix "soak-r2-i3"
  int killed_by = 0;     // the fault that killed it; 0: it drained or still runs
};

struct ProcessSlot {
  std::string role;  // "relay", "consumer"
  int index = 0;     // 0-based
  std::string account;
  std::unique_ptr<harness::DaemonProcess> process;
  std::vector<Incarnation> incarnations;
};

struct WriterRun {
  std::string account;
  int64_t first_order_id = 1;
  int64_t orders = 0;
  std::unique_ptr<harness::ChildProcess> process;
};

// The chaos soak: writers, relays and consumers run together against the soak's own MariaDB
// and the test broker while the schedule's faults hit them; then everything heals, the chain
// catches up, every process drains, and what happened is read back.
class SoakRun {
 public:
  SoakRun(Chain& chain, SoakServer& server, SoakShape shape, std::vector<Fault> schedule);
  ~SoakRun();
  SoakRun(const SoakRun&) = delete;
  SoakRun& operator=(const SoakRun&) = delete;

  // Runs the schedule and waits for the chain to finish. Returns what kept it from finishing
  // (a writer failed, events did not all arrive in time, a process did not drain); empty when
  // it finished.
  std::string run();

  const std::vector<InjectedFault>& injected() const { return injected_; }
  const std::vector<ProcessSlot>& relays() const { return relays_; }
  const std::vector<ProcessSlot>& consumers() const { return consumers_; }
  const std::vector<WriterRun>& writers() const { return writers_; }
  double seconds() const { return seconds_; }

 private:
  void create_accounts();
  void start(ProcessSlot& slot);
  void inject(InjectedFault& injected);
  void heal(const Fault& fault);
  void heal_everything();
  // Starts a node a broker_kill killed, in the background; finish_node_restarts() waits for
  // every restart begun and records the ones that failed.
  void begin_node_restart(int node);
  void finish_node_restarts();
  int kill_sessions(const std::string& account);
  std::string progress() const;
  // Waits (with progress lines) until `done`; false when `limit` passed first.
  bool wait_until(const std::string& what, const std::function<bool()>& done, double limit_s);

  Chain& chain_;
  SoakServer& server_;
  SoakShape shape_;
  std::vector<Fault> schedule_;
  std::vector<InjectedFault> injected_;
  std::vector<ProcessSlot> relays_;
  std::vector<ProcessSlot> consumers_;
  std::vector<WriterRun> writers_;
  struct NodeRestart {
    int node;
    std::future<std::string> failure;  // empty: the node serves clients again
  };
  std::vector<NodeRestart> node_restarts_;
  std::set<int> killed_nodes_;  // Kafka nodes killed and not yet restarted
  std::string heal_problems_;   // what the final heal could not mend
  // How much later than scheduled the remaining steps run (waits for nodes' restarts).
  std::chrono::steady_clock::duration slip_{};
  double seconds_ = 0;
};

// UTC microseconds now: the clock of the daemons' log lines.
int64_t now_us();

}  // namespace outbox::verify
