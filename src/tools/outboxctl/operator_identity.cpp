#include "operator_identity.hpp"

#include <pwd.h>
#include <unistd.h>

#include <array>
#include <cstdlib>

namespace outbox::ctl {

std::string operator_name() {
  std::string user;
  for (const char* variable : {"SUDO_USER", "USER", "LOGNAME"}) {
    const char* value = std::getenv(variable);  // NOLINT(concurrency-mt-unsafe): one thread
    if (value != nullptr && *value != '\0') {
      user = value;
      break;
    }
  }
  if (user.empty()) {
    const passwd* entry = getpwuid(getuid());  // NOLINT(concurrency-mt-unsafe): one thread
    user = entry != nullptr ? entry->pw_name : "uid " + std::to_string(getuid());
  }
  std::array<char, 256> host{};
  if (gethostname(host.data(), host.size() - 1) == 0) user += "@" + std::string(host.data());
  return user;
}

}  // namespace outbox::ctl
