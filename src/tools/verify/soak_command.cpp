#include "soak_command.hpp"

#include <spdlog/spdlog.h>

namespace outbox::verify {

int run_soak_command(const SoakCommand&) {
  spdlog::error("outbox-verify soak: not in this build yet");
  return 64;
}

void stop_soak_servers() {}

}  // namespace outbox::verify
