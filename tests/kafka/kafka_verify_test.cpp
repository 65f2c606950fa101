// outbox-verify against a real Apache Kafka cluster (--kafka real: 3 KRaft nodes started by
// scripts/kafka-cluster.sh of this source tree): the seven windows, and a short chaos soak whose
// faults include kill -9 of a Kafka node. The reports are checked as tests/verify checks the
// mock's (tests/support/verify_reports.hpp), plus what only the real cluster shows.
#include <catch2/catch.hpp>

#include <iostream>

#include "test_env.hpp"
#include "verify_reports.hpp"

using outbox::test::KeptDatabase;
using outbox::test::run_verify;
using outbox::test::TempDir;

TEST_CASE("outbox-verify forces the seven windows on the real Kafka cluster, every one PASS",
          "[kafka][verify][mysql-matrix]") {
  TempDir dir;
  const auto run = run_verify({"--kafka", "real", "--work-dir", dir.file("work"), "--keep"},
                              dir.file("report.yaml"), "repeatableDeliveryVerification");
  INFO(outbox::test::verify_exit_summary(run));
  INFO(run.result.err);
  INFO(run.report_text);
  REQUIRE(run.report.IsMap());
  const KeptDatabase db(run.report["database"].as<std::string>());
  CHECK(run.report["kafka"].as<std::string>() == "real");
  // Never the mock: the report names the real broker's version.
  outbox::test::check_seven_windows_report(run, db, "Apache Kafka 4.4.0, 3 KRaft nodes");
  CHECK(run.report["versions"]["brokerAndClient"]["broker"].as<std::string>().find("librdkafka") ==
        std::string::npos);
}

TEST_CASE("a short chaos soak on the real Kafka cluster: nodes killed -9, nothing lost",
          "[kafka][verify][soak]") {
  TempDir dir;
  // A random seed, printed by the soak: a failure here is replayed with --seed.
  const auto run = run_verify({"soak", "--kafka", "real", "--events", "4000", "--faults", "20",
                               "--partitions", "8", "--work-dir", dir.file("work")},
                              dir.file("soak.yaml"), "chaosSoak");
  INFO(outbox::test::verify_exit_summary(run));
  INFO(run.result.err);
  INFO(run.report_text);
  REQUIRE(run.report.IsMap());
  CHECK(run.report["kafka"].as<std::string>() == "real");
  CHECK(run.report["versions"]["brokerAndClient"]["broker"].as<std::string>().find(
            "Apache Kafka 4.4.0") != std::string::npos);
  std::cout << "[figures] soak on the real Kafka cluster, seed " << run.report["seed"] << ", "
            << run.report["shape"]["seconds"] << " s:\n"
            << outbox::test::soak_table(run);
  const auto rows = outbox::test::check_soak_report(run, 4000, 20);
  REQUIRE(rows.count("broker_kill") == 1);
  CHECK(rows.at("broker_kill")["injected"].as<int>() >= 1);
  CHECK(rows.count("broker_request_errors") == 0);  // the mock's; named as not on this broker
  CHECK(run.report["faults"]["notOnThisBroker"]["broker_request_errors"].IsDefined());
  CHECK(run.result.err.find("serves clients again") != std::string::npos);  // each killed node
}

TEST_CASE("outbox-verify ordering on the real Kafka cluster: nodes and relays killed -9",
          "[kafka][verify][ordering][mysql-matrix]") {
  TempDir dir;
  const auto run = run_verify({"ordering", "--kafka", "real", "--work-dir", dir.file("work")},
                              dir.file("ordering.yaml"), "orderingVerification");
  INFO(outbox::test::verify_exit_summary(run));
  INFO(run.result.err);
  INFO(run.report_text);
  REQUIRE(run.report.IsMap());
  outbox::test::check_ordering_report(run, "real", "per_aggregate");
  CHECK(run.result.err.find("serves clients again") != std::string::npos);  // each killed node
}
