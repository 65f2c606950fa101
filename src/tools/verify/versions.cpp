#include "versions.hpp"

#include <dlfcn.h>
#include <librdkafka/rdkafka.h>

#include "harness/child_process.hpp"
#include "version.hpp"

namespace outbox::verify {

std::string first_output_line(const std::vector<std::string>& argv) {
  const harness::CommandResult result = harness::run_command(argv);
  std::string out = result.out.empty() ? result.err : result.out;
  if (const size_t end = out.find('\n'); end != std::string::npos) out.resize(end);
  if (result.status != 0) {
    return "unknown (" + argv[0] + " exited " + std::to_string(result.status) + ")";
  }
  return out;
}

namespace {

// libmariadb, as loaded by Connector/C++ into this process. Looked up at run time: Debian
// ships no headers for it, and the version that matters is the one actually loaded.
std::string client_library() {
  using ClientInfo = const char* (*)();
  void* symbol = dlsym(RTLD_DEFAULT, "mysql_get_client_info");
  if (symbol == nullptr) return "unknown (mysql_get_client_info not loaded)";
  return std::string("libmariadb ") + reinterpret_cast<ClientInfo>(symbol)();
}

// "kcat 1.7.1 (librdkafka 2.0.2)" from kcat -V, whose version line is the 4th.
std::string kcat_version() {
  const harness::CommandResult result = harness::run_command({"kcat", "-V"});
  const size_t at = result.out.find("Version ");
  if (result.status != 0 || at == std::string::npos) return "unknown (kcat -V failed)";
  const size_t end = result.out.find(' ', at + 8);
  std::string version = "kcat " + result.out.substr(at + 8, end - at - 8);
  const size_t library = result.out.find("librdkafka ", end);
  if (library != std::string::npos) {
    version +=
        " (" + result.out.substr(library, result.out.find(' ', library + 11) - library) + ")";
  }
  return version;
}

}  // namespace

YAML::Node collect_versions(const Programs& programs, const harness::MariadbCli& sql,
                            const ChainBroker& broker) {
  YAML::Node versions;
  versions["application"]["verifier"] = version_line("outbox-verify");
  versions["application"]["relay"] = first_output_line({programs.relay, "--version"});
  versions["application"]["consumer"] = first_output_line({programs.planner, "--version"});
  versions["mysqlAndDriver"]["server"] =
      sql.scalar("SELECT CONCAT(VERSION(), ' (', @@version_comment, ')')");
  const std::string verifier = version_line("outbox-verify");
  const size_t connector = verifier.find("MySQL Connector/C++");
  versions["mysqlAndDriver"]["driver"] =
      connector == std::string::npos ? "unknown"
                                     : verifier.substr(connector, verifier.size() - connector - 1);
  versions["mysqlAndDriver"]["clientLibrary"] = client_library();
  versions["brokerAndClient"]["broker"] = broker.version();
  versions["brokerAndClient"]["client"] = std::string("librdkafka ") + rd_kafka_version_str() +
                                          " (relay, consumer; idempotent producer, acks=all)";
  versions["brokerAndClient"]["independentReader"] = kcat_version();
  return versions;
}

}  // namespace outbox::verify
