#include "run_setup.hpp"

#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>

namespace outbox::verify {
namespace {

std::string utc_stamp() {
  const std::time_t now = std::time(nullptr);
  std::tm parts{};
  gmtime_r(&now, &parts);
  char text[32];
  std::strftime(text, sizeof(text), "%Y%m%dT%H%M%SZ", &parts);
  return text;
}

std::string random_hex(int digits) {
  std::random_device entropy;
  std::string out;
  for (int i = 0; i < digits; ++i)
    out += "0123456789abcdef"[entropy() % 16];
  return out;
}

std::string lowercase(std::string text) {
  for (char& c : text)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

}  // namespace

std::optional<RunSetup> prepare_run(const CommonOptions& common, const std::string& kind,
                                    std::string& error) {
  RunSetup run;
  const std::string stamp = utc_stamp();
  const std::string suffix = random_hex(4);
  run.experiment_id = "vfy-" + kind + "-" + stamp + "-" + suffix;
  run.database = "outbox_verify_" + lowercase(stamp) + "_" + suffix;
  run.programs = Programs::of_this_build();
  if (!common.bin_dir.empty()) run.programs.use_bin_dir(common.bin_dir);
  if (!common.kafka_script.empty()) run.programs.kafka_cluster_script = common.kafka_script;
  if (const auto missing = run.programs.missing(common.kafka)) {
    error = "cannot run " + *missing + " (see --bin-dir and --kafka-script)";
    return std::nullopt;
  }
  if (common.work_dir.empty()) {
    run.owned_dir = std::make_unique<harness::TempDir>("outbox-verify");
    run.work_dir = run.owned_dir->path();
  } else {
    std::error_code failed;
    std::filesystem::create_directories(common.work_dir, failed);
    if (failed) {
      error = "cannot create " + common.work_dir + ": " + failed.message();
      return std::nullopt;
    }
    run.work_dir = std::filesystem::absolute(common.work_dir).string();
  }
  return run;
}

bool write_report(const CommonOptions& common, const std::string& yaml, std::string& error) {
  if (common.report.empty()) {
    std::cout << yaml << std::flush;
    return true;
  }
  std::ofstream out(common.report);
  out << yaml;
  if (!out) {
    error = "cannot write the report to " + common.report;
    return false;
  }
  return true;
}

}  // namespace outbox::verify
