#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "chain_broker.hpp"
#include "harness/mariadb_cli.hpp"
#include "programs.hpp"

namespace outbox::verify {

// The real versions of everything that ran, each asked of the thing itself: the binaries'
// --version, the server's VERSION(), the client library this process loaded, the broker (see
// ChainBroker::version), kcat -V. A map per seed placeholder: application, mysqlAndDriver,
// brokerAndClient.
YAML::Node collect_versions(const Programs& programs, const harness::MariadbCli& sql,
                            const ChainBroker& broker);

// The first line a program prints (stdout, else stderr, as `java -version` does), or
// "unknown (...)" naming its exit status.
std::string first_output_line(const std::vector<std::string>& argv);

}  // namespace outbox::verify
