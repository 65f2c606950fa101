#pragma once

#include <memory>
#include <string>

#include "bench_context.hpp"
#include "debezium_connect.hpp"

namespace outbox::bench {

enum class System { relay, debezium };

// "relay", "Debezium".
std::string system_name(System system);

// One of the two systems compared side by side, moving outbox_event rows to one topic. Its
// process is started with its defaults (docs/benchmarks.md lists every setting the bench sets).
class Contender {
 public:
  virtual ~Contender() = default;
  // Before a backlog is committed while the system is stopped. Debezium starts once and stops,
  // so its offsets record where the binary log stood: a connector that never ran would begin
  // at its first start (snapshot.mode=no_data) and skip the backlog. The relay needs nothing.
  virtual void prepare() = 0;
  // Starts the process and returns at once (a catch-up's clock runs from here).
  virtual void start() = 0;
  // Returns once the system moves events (Debezium: streams the binary log).
  virtual void wait_ready() = 0;
  // Stops the process: true when it exited by itself, false when it had to be killed (the
  // caller counts it); throws when it failed.
  virtual bool stop() = 0;
  virtual pid_t pid() const = 0;
  // The header that carries the event id on its messages.
  virtual std::string id_header() const = 0;
  // Its log so far, for errors and for the settings it ran with.
  virtual std::string log() const = 0;
};

// `serial` tells runs apart (relay instance ids, Debezium's replication client id).
std::unique_ptr<Contender> make_contender(System system, BenchContext& context,
                                          const DebeziumTarget& debezium, const std::string& topic,
                                          int serial);

}  // namespace outbox::bench
