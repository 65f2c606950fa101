#pragma once

#include <yaml-cpp/yaml.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "harness/child_process.hpp"
#include "harness/mariadb_cli.hpp"

namespace outbox::test {

// outbox-verify as the tests run it (this build's binary) on the mock cluster (tests/verify) and
// on the real Kafka cluster (tests/kafka): the report read back with yaml-cpp, the database it
// leaves checked with the mariadb CLI, never through the verifier.

struct VerifyRun {
  harness::CommandResult result;  // result.err: the verifier's log
  std::string report_text;
  YAML::Node report;  // the report's `root` map; undefined when there is none
};

// Runs outbox-verify with `args` plus --report <report_file>, and reads the report's `root`
// (repeatableDeliveryVerification or chaosSoak). A run still going after `limit` is stopped
// and fails with its log so far; the default stays under ctest's 600 s for these tests.
VerifyRun run_verify(std::vector<std::string> args, const std::string& report_file,
                     const std::string& root,
                     std::chrono::seconds limit = std::chrono::seconds(520));

// How the run ended, its last error line and the last `lines` lines of its log, for a failing
// test's first message: a CI log's excerpt keeps only a message's first lines, and a whole log
// can end before the line that says why (a soak that ended with no report printed only its first
// lines there).
std::string verify_exit_summary(const VerifyRun& run, size_t lines = 25);

// The database a windows report names, through the mariadb CLI, dropped when the test is done
// with it.
class KeptDatabase {
 public:
  explicit KeptDatabase(const std::string& name);
  ~KeptDatabase();
  KeptDatabase(const KeptDatabase&) = delete;
  KeptDatabase& operator=(const KeptDatabase&) = delete;
  long long count(const std::string& sql) const { return cli_.count(sql); }
  // VERSION() of the server, as the mariadb CLI reads it.
  std::string server_version() const { return cli_.scalar("SELECT VERSION()"); }

 private:
  harness::MariadbCli cli_;
  std::string name_;
};

// CHECKs the report of a run of all seven windows: the seed's keys with every placeholder
// filled, every injection and invariant PASS, the duplicate path shown to have run (the events
// of windows 4-6 delivered twice, deduplicated, applied once), ten orders; and the same in the
// database it left. `broker`: what versions.brokerAndClient.broker must name.
void check_seven_windows_report(const VerifyRun& run, const KeptDatabase& db,
                                const std::string& broker);

// CHECKs a soak report: every check PASS, `events` orders and jobs, `faults` faults in all, one
// row per fault kind of its broker (each injected at least once, none skipped) plus
// "unattributed", the seed and the replay command in the log. Returns the rows by fault kind.
std::map<std::string, YAML::Node> check_soak_report(const VerifyRun& run, int64_t events,
                                                    int faults);

// The soak's table of duplicates per fault kind as its log printed it (the lines after
// "duplicates per fault kind", without the log prefix), for the test's [figures] output,
// followed by every check that did not PASS with its evidence.
std::string soak_table(const VerifyRun& run);

// CHECKs an ordering report (outbox-verify ordering, its defaults: 300 aggregates x 30
// versions, 8 faults): every check PASS; every event published and on the topic; 0 inversions
// of first occurrences; faults of both kinds injected; the ordered path (pipelined batches for
// per_aggregate, transactions for transactional) shown to have run. Prints its figures.
void check_ordering_report(const VerifyRun& run, const std::string& kafka,
                           const std::string& ordering);

}  // namespace outbox::test
