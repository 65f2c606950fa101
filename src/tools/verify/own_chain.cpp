#include "own_chain.hpp"

namespace outbox::verify {

std::optional<OwnChain> start_own_chain(RunSetup& setup, const CommonOptions& common,
                                        const std::string& mariadb_dir, int partitions,
                                        std::string& error) {
  const std::string server_dir = mariadb_dir.empty() ? setup.work_dir + "/mariadb" : mariadb_dir;
  OwnChain own;
  try {
    own.server = std::make_unique<SoakServer>(setup.programs.server_script, server_dir);
    ChainSetup chain_setup{setup.programs, own.server->endpoint(), setup.database, setup.work_dir};
    chain_setup.partitions = partitions;
    chain_setup.broker = common.kafka;
    chain_setup.relay_ordering = common.ordering;
    own.chain = std::make_unique<Chain>(chain_setup);
  } catch (const std::exception& e) {
    error = e.what();
    if (setup.owned_dir) setup.owned_dir->keep();
    return std::nullopt;
  }
  return own;
}

}  // namespace outbox::verify
