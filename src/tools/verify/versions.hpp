#pragma once

#include <yaml-cpp/yaml.h>

#include "harness/mariadb_cli.hpp"
#include "programs.hpp"

namespace outbox::verify {

// The real versions of everything that ran, each asked of the thing itself: the binaries'
// --version, the server's VERSION(), the client library this process loaded, kcat -V. A map
// per seed placeholder: application, mysqlAndDriver, brokerAndClient.
YAML::Node collect_versions(const Programs& programs, const harness::MariadbCli& sql);

}  // namespace outbox::verify
