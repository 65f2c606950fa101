// outbox-verify as CI runs it, on librdkafka's mock cluster (its default): the seven windows
// against the test MariaDB (the report must carry the seed's keys, every placeholder filled,
// everything PASS, the duplicate path shown to have run), a self-test that fails when a
// window's fault is not forced, a short chaos soak on a MariaDB server of its own, and the
// ordering run (per-aggregate order through relay kills and produce errors) with its
// self-test (relays that keep no order must fail it). The same
// checks run against the real Kafka cluster in tests/kafka/kafka_verify_test.cpp.
#include <catch2/catch.hpp>

#include <iostream>

#include "test_env.hpp"
#include "verify_reports.hpp"

using outbox::test::KeptDatabase;
using outbox::test::run_verify;
using outbox::test::TempDir;

TEST_CASE("outbox-verify forces the seven windows, every injection and invariant PASS",
          "[verify]") {
  TempDir dir;
  const auto run = run_verify({"--work-dir", dir.file("work"), "--keep"}, dir.file("report.yaml"),
                              "repeatableDeliveryVerification");
  INFO(outbox::test::verify_exit_summary(run));
  INFO(run.result.err);
  INFO(run.report_text);
  REQUIRE(run.report.IsMap());
  const KeptDatabase db(run.report["database"].as<std::string>());
  CHECK(run.report["kafka"].as<std::string>() == "mock");
  outbox::test::check_seven_windows_report(run, db, "librdkafka");
}

TEST_CASE("a verifier whose duplicate path never ran fails: window 6 without its fault",
          "[verify]") {
  TempDir dir;
  const auto run =
      run_verify({"--windows", "6", "--without-fault", "6", "--work-dir", dir.file("work")},
                 dir.file("report.yaml"), "repeatableDeliveryVerification");
  INFO(outbox::test::verify_exit_summary(run));
  INFO(run.result.err);
  INFO(run.report_text);
  const YAML::Node& doc = run.report;
  REQUIRE(doc.IsMap());
  const KeptDatabase db(doc["database"].as<std::string>());  // kept because it failed
  CHECK(run.result.status == 1);
  REQUIRE(doc["injections"].size() == 1);
  CHECK(doc["injections"][0]["forcedBy"].as<std::string>().rfind("NOT FORCED", 0) == 0);
  CHECK(doc["injections"][0]["verdict"].as<std::string>() == "FAIL");
  CHECK(doc["invariants"]["duplicatePathRan"].as<std::string>() == "FAIL");
  CHECK(doc["invariants"]["unknownCommitReconciledByStableRequestId"].as<std::string>() ==
        "NOT_RUN");
  CHECK(doc["verdict"].as<std::string>() == "FAIL");
  // Nothing was lost or doubled: the run was fine, only the proof is missing.
  CHECK(doc["invariants"]["oneLocalEffectPerConsumerAndEvent"].as<std::string>() == "PASS");
}

TEST_CASE("a short chaos soak loses nothing and explains its duplicates by fault kind",
          "[verify][soak]") {
  TempDir dir;
  // A random seed, printed by the soak: a failure here is replayed with --seed.
  const auto run = run_verify({"soak", "--events", "5000", "--faults", "30", "--partitions", "8",
                               "--work-dir", dir.file("work")},
                              dir.file("soak.yaml"), "chaosSoak");
  INFO(outbox::test::verify_exit_summary(run));
  INFO(run.result.err);
  INFO(run.report_text);
  REQUIRE(run.report.IsMap());
  CHECK(run.report["kafka"].as<std::string>() == "mock");
  std::cout << "[figures] soak on the mock cluster, seed " << run.report["seed"] << ", "
            << run.report["shape"]["seconds"] << " s:\n"
            << outbox::test::soak_table(run);
  const auto rows = outbox::test::check_soak_report(run, 5000, 30);
  CHECK(rows.count("broker_request_errors") == 1);
  CHECK(rows.count("broker_kill") == 0);  // the mock has no node to kill
  CHECK(run.report["faults"]["notOnThisBroker"]["broker_kill"].IsDefined());
}

TEST_CASE("a short chaos soak with ordering transactional loses nothing either", "[verify][soak]") {
  TempDir dir;
  const auto run =
      run_verify({"soak", "--ordering", "transactional", "--events", "3000", "--faults", "20",
                  "--partitions", "8", "--work-dir", dir.file("work")},
                 dir.file("soak.yaml"), "chaosSoak");
  INFO(outbox::test::verify_exit_summary(run));
  INFO(run.result.err);
  INFO(run.report_text);
  REQUIRE(run.report.IsMap());
  // The relays really ran transactional: the soak names the mode, each relay its producers.
  CHECK(run.result.err.find("relay.ordering transactional") != std::string::npos);
  std::cout << "[figures] soak with ordering transactional on the mock cluster, seed "
            << run.report["seed"] << ", " << run.report["shape"]["seconds"] << " s:\n"
            << outbox::test::soak_table(run);
  (void)outbox::test::check_soak_report(run, 3000, 20);
}

TEST_CASE("outbox-verify ordering: versions in order through relay kills and produce errors",
          "[verify][ordering]") {
  TempDir dir;
  const auto run = run_verify({"ordering", "--work-dir", dir.file("work")},
                              dir.file("ordering.yaml"), "orderingVerification");
  INFO(outbox::test::verify_exit_summary(run));
  INFO(run.result.err);
  INFO(run.report_text);
  REQUIRE(run.report.IsMap());
  outbox::test::check_ordering_report(run, "mock", "per_aggregate");
}

TEST_CASE("outbox-verify ordering fails relays that keep no order: ordering none",
          "[verify][ordering]") {
  // The same run with relay.ordering none: several relays publish an aggregate's versions at
  // once, so the check must find versions first seen after higher ones. A verifier that
  // passed this would prove nothing about the ordered modes.
  TempDir dir;
  const auto run = run_verify({"ordering", "--ordering", "none", "--work-dir", dir.file("work")},
                              dir.file("ordering.yaml"), "orderingVerification");
  INFO(outbox::test::verify_exit_summary(run));
  INFO(run.result.err);
  INFO(run.report_text);
  const YAML::Node& doc = run.report;
  REQUIRE(doc.IsMap());
  CHECK(run.result.status == 1);
  CHECK(doc["verdict"].as<std::string>() == "FAIL");
  CHECK(doc["checks"]["firstOccurrencesInVersionOrder"].as<std::string>() == "FAIL");
  CHECK(doc["counts"]["firstOccurrenceInversions"].as<long long>() > 0);
  // Only the order broke: nothing was lost.
  CHECK(doc["checks"]["everyEventPublished"].as<std::string>() == "PASS");
  CHECK(doc["checks"]["everyVersionOnTheTopic"].as<std::string>() == "PASS");
  std::cout << "[figures] outbox-verify ordering with relay.ordering none on the mock cluster: "
            << doc["checkEvidence"]["firstOccurrencesInVersionOrder"] << "\n";
}
