#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <string>
#include <vector>

namespace outbox::verify {

// The stable ids of one order a window followed from the writer to the consumer's effect.
struct TracedOrder {
  std::string label;  // "1a", "4", "7b": the window (and case) that used it
  int window = 0;
  std::string request_id;
  int64_t order_id = 0;
  std::string event_id;  // empty while (or when) no order was committed
};

// One injection point of the report: where the fault was forced, what the seed expects there,
// and the evidence the run produced. `observed` is filled in the order the evidence was taken.
struct InjectionReport {
  int window = 0;
  std::string point;      // the seed's name, e.g. AFTER_BROKER_CONFIRM_BEFORE_MARK_PUBLISHED
  std::string expected;   // the seed's expectation, e.g. MESSAGE_MAY_REPEAT_NO_DUPLICATE_...
  std::string forced_by;  // the fault: outside (kill -9, KILL CONNECTION, ...) or failpoint
  std::vector<TracedOrder> orders;
  YAML::Node observed{YAML::NodeType::Map};
  std::vector<std::string> failures;  // expectations that did not hold; none: PASS

  // Records a failure unless `holds`.
  bool expect(bool holds, const std::string& what) {
    if (!holds) failures.push_back(what);
    return holds;
  }
  bool passed() const { return failures.empty(); }
};

}  // namespace outbox::verify
