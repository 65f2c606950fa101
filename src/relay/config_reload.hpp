#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "poll_schedule.hpp"
#include "relay_config.hpp"

namespace outbox {

// What a SIGHUP can change in a running relay: log.level, relay.batch_size,
// relay.poll_interval and relay.poll_interval_max. Everything else needs a restart.
struct LiveSettings {
  std::atomic<size_t> batch_size;
  PollSchedule& polls;
};

// Applies the runtime-changeable settings of `fresh` (to `live` and to `running`, which then
// describes what runs) and returns the dotted key of every other setting that differs from
// `running` (each needs a restart to take effect). Secrets compare as printed, i.e.
// redacted: a changed password also needs a restart but is not named.
std::vector<std::string> apply_reload(RelayConfig& running, const RelayConfig& fresh,
                                      LiveSettings& live);

}  // namespace outbox
