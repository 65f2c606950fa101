#pragma once

#include <memory>
#include <optional>
#include <string>

#include "harness/temp_dir.hpp"
#include "programs.hpp"
#include "verify_options.hpp"

namespace outbox::verify {

// What a verification run sets up before the chain: its id, the programs, its directory.
struct RunSetup {
  std::string experiment_id;  // "vfy-20261129T155100Z-3fa2"
  std::string database;       // "outbox_verify_20261129t155100z_3fa2"
  Programs programs;
  std::string work_dir;
  std::unique_ptr<harness::TempDir> owned_dir;  // when no --work-dir was given
};

// The run's id, programs and directory; nullopt with `error` when a program is missing or the
// directory cannot be made.
std::optional<RunSetup> prepare_run(const CommonOptions& common, const std::string& kind,
                                    std::string& error);

// Writes the report to --report FILE, or stdout. False (with `error`) when it cannot.
bool write_report(const CommonOptions& common, const std::string& yaml, std::string& error);

}  // namespace outbox::verify
