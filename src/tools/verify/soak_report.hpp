#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <string>

#include "chain.hpp"
#include "soak_run.hpp"

namespace outbox::verify {

struct SoakSummary {
  std::string experiment_id;
  std::string database;
  uint64_t seed = 0;
  std::string replay;  // the command line that replays this schedule
  SoakShape shape;
  int partitions = 0;
  std::string run_problem;  // what kept the run from finishing; empty when it finished
  YAML::Node versions;
};

struct SoakVerdict {
  YAML::Node report;  // chaosSoak: ...
  std::string table;  // duplicates per fault kind, as text
  bool passed = false;
};

// Reads everything back after the soak (the database through the mariadb CLI, the topic with
// kcat, every process's log) and judges it: zero events lost, every event PUBLISHED, one local
// effect per event, every duplicate through the dedupe, every process drained, every fault
// injected; and the table of duplicates per fault kind.
SoakVerdict judge_soak(const SoakSummary& summary, const Chain& chain, const SoakRun& run);

}  // namespace outbox::verify
