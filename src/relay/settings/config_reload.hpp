#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "event_rate.hpp"
#include "poll_schedule.hpp"
#include "settings/relay_config.hpp"

namespace outbox {

// What a SIGHUP can change in a running relay: log.level, relay.batch_size,
// relay.poll_interval, relay.poll_interval_max and relay.max_events_per_second. Everything else
// needs a restart.
struct LiveSettings {
  std::atomic<size_t> batch_size;
  PollSchedule& polls;
  EventRate& rate;  // relay.max_events_per_second
};

// Applies the runtime-changeable settings of `fresh` (to `live` and to `running`, which then
// describes what runs) and returns the dotted key of every other setting that differs from
// `running` (each needs a restart to take effect). Secrets compare as printed, i.e.
// redacted: a changed password also needs a restart but is not named.
std::vector<std::string> apply_reload(RelayConfig& running, const RelayConfig& fresh,
                                      LiveSettings& live);

}  // namespace outbox
