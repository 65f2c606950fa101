#pragma once

#include <memory>
#include <optional>
#include <string>

#include "chain.hpp"
#include "run_setup.hpp"
#include "soak_server.hpp"

namespace outbox::verify {

// A MariaDB server of the run's own (scripts/local-mariadb.sh under `mariadb_dir`, or
// <work dir>/mariadb) and the chain on it: what the soak and the ordering run start with.
struct OwnChain {
  std::unique_ptr<SoakServer> server;
  std::unique_ptr<Chain> chain;
};

// nullopt with `error` when the server or the chain cannot be set up; the work directory is
// then kept for inspection.
std::optional<OwnChain> start_own_chain(RunSetup& setup, const CommonOptions& common,
                                        const std::string& mariadb_dir, int partitions,
                                        std::string& error);

}  // namespace outbox::verify
