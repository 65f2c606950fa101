// The config loaders as start-up and --check-config run them (load_relay_config,
// load_planner_config): YAML parsing, ${VAR} substitution, durations, integers, maps and every
// section's checks, on arbitrary file contents. A file either loads (and prints) or fails
// with at least one problem for the operator; nothing throws or crashes.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <string>

#include "planner_config.hpp"
#include "settings/relay_config.hpp"

namespace {

// The file the loaders read: an anonymous memory file, rewritten for each input, so the loader
// opens a real path (/proc/self/fd/N) exactly as it opens an operator's file.
class MemoryFile {
 public:
  MemoryFile() : fd_(memfd_create("outbox-fuzz-config", 0)) {
    if (fd_ < 0) std::abort();
  }
  std::string path() const { return "/proc/self/fd/" + std::to_string(fd_); }
  void write(const uint8_t* data, size_t size) const {
    if (ftruncate(fd_, 0) != 0 || pwrite(fd_, data, size, 0) != static_cast<ssize_t>(size)) {
      std::abort();
    }
  }

 private:
  int fd_;
};

// A fixed environment: ${MYSQL_HOST}, ${EMPTY}, ${SECRET} resolve, anything else is unset.
std::optional<std::string> environment(const std::string& name) {
  static const std::map<std::string, std::string> variables{
      {"MYSQL_HOST", "127.0.0.1"}, {"EMPTY", ""}, {"SECRET", "s3cr3t"}, {"BROKERS", "b1:9092"}};
  const auto found = variables.find(name);
  if (found == variables.end()) return std::nullopt;
  return found->second;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const MemoryFile file;
  file.write(data, size);
  const outbox::EnvLookup env = environment;

  outbox::ConfigDiagnostics relay_problems(file.path());
  const std::optional<outbox::RelayConfig> relay =
      outbox::load_relay_config(file.path(), env, relay_problems);
  if (relay) {
    if (!relay_problems.empty()) std::abort();
    (void)outbox::print_relay_config(*relay);
  } else if (relay_problems.empty() || relay_problems.render().empty()) {
    std::abort();  // refused without saying why
  }

  outbox::ConfigDiagnostics planner_problems(file.path());
  const std::optional<outbox::planner::PlannerConfig> planner =
      outbox::planner::load_planner_config(file.path(), env, planner_problems);
  if (planner) {
    if (!planner_problems.empty()) std::abort();
    (void)outbox::planner::print_planner_config(*planner);
  } else if (planner_problems.empty() || planner_problems.render().empty()) {
    std::abort();
  }
  return 0;
}
