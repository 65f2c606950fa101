// Catch2's main, with options of ours taken out of the arguments first:
//   --db-env FILE   the env file a server script wrote (scripts/local-mysql.sh or
//                   local-mariadb.sh: "export OUTBOX_MYSQL_HOST=..." lines); its variables replace
//                   the ones in the environment, for this process and every program it starts.
//   --env NAME=VALUE  one variable the same way (OUTBOX_KAFKA_SECURITY=sasl_ssl: the kafka tests
//                   registered a second time on a SASL_SSL cluster).
// ctest runs each database test twice, the copies named "mysql: ..." with the MySQL server's
// env file (tests/CMakeLists.txt), while the test command's environment names MariaDB's: both
// servers' tests share one ctest run and its slots.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

namespace {

// Applies each "export NAME=VALUE" line of `file`; false when it cannot be read.
bool apply_env_file(const std::string& file) {
  std::ifstream in(file);
  if (!in) return false;
  const std::string prefix = "export ";
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(prefix, 0) != 0) continue;
    const size_t equals = line.find('=');
    if (equals == std::string::npos) continue;
    const std::string name = line.substr(prefix.size(), equals - prefix.size());
    setenv(name.c_str(), line.substr(equals + 1).c_str(), 1);
  }
  return true;
}

}  // namespace

int main(int argc, char* argv[]) {
  std::vector<char*> catch_args;
  for (int i = 0; i < argc; ++i) {
    if (std::string(argv[i]) == "--db-env" && i + 1 < argc) {
      if (!apply_env_file(argv[i + 1])) {
        std::cerr << "--db-env: cannot read " << argv[i + 1]
                  << " (scripts/test.sh starts the servers and writes it)\n";
        return 2;
      }
      ++i;
      continue;
    }
    if (std::string(argv[i]) == "--env" && i + 1 < argc) {
      const std::string assignment = argv[i + 1];
      const size_t equals = assignment.find('=');
      if (equals == std::string::npos) {
        std::cerr << "--env: expected NAME=VALUE, got " << assignment << "\n";
        return 2;
      }
      setenv(assignment.substr(0, equals).c_str(), assignment.substr(equals + 1).c_str(), 1);
      ++i;
      continue;
    }
    catch_args.push_back(argv[i]);
  }
  return Catch::Session().run(static_cast<int>(catch_args.size()), catch_args.data());
}
